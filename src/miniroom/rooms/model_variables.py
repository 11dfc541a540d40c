"""`config.yaml` checked as the runtime will use it: every model's variables against the project's profiles.

Under `miniroom serve` the folder of config.yaml is the project whose `.miniroom/` applies to every agent,
so a model's `AGENT_BACKEND=mini:<name>` must name a profile of that folder's `.miniroom/miniagent.yml`.
The rules are the runtime's own (`miniroom.agent.profile.model_variable_problems`); this module only says
where in config.yaml each problem was written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from miniroom.agent.profile import PROFILE_FILE, model_variable_problems, parse_variables, read_profiles
from miniroom.engine.yaml_source import YamlSource
from miniroom.rooms.config import RoomsConfig, config_error, read_config
from miniroom.settings_errors import Loc, Problem, key_path

__all__ = ["config_model_problems", "load_checked_config"]


def load_checked_config(path: Path) -> RoomsConfig:
    """config.yaml, valid and with every model's variables usable; ConfigError lists every problem."""
    config, parsed = read_config(path)
    problems = config_model_problems(config, parsed, path.parent)
    if problems:
        raise config_error(problems, str(path))
    return config


def config_model_problems(config: RoomsConfig, parsed: YamlSource, project_dir: Path) -> list[Problem]:
    """Each bad model variable at its `models.<alias>.variables[i]` line; a broken profile file's errors."""
    if not config.models:
        return []
    profile_file = project_dir / PROFILE_FILE
    profiles, file_problems = read_profiles(profile_file)
    errors = [problem for problem in file_problems if problem.severity == "error"]
    if errors:  # no profile can be checked against a file the runtime refuses: its own errors say why
        return errors
    problems = []
    for alias, model in config.models.items():
        for found in model_variable_problems(parse_variables(model.variables), profiles, profile_file):
            loc = _variable_loc(alias, model.variables, found.name)
            message = f"{found.name}: {found.message}"
            problems.append(Problem(parsed.path, parsed.line_of(loc), key_path(loc), message))
    return problems


def _variable_loc(alias: str, lines: Sequence[str], name: str) -> Loc:
    """Where `name` is set in a model's variables: its last line, which is the one that counts."""
    setting = [index for index, line in enumerate(lines) if line.partition("=")[0].strip() == name]
    where: Loc = ("models", alias, "variables")
    return (*where, setting[-1]) if setting else where
