"""`config.yaml` checked as the runtime will use it: the schema, then what only this program knows.

The schema (`miniroom.config.config_yaml`) checks the file on its own; here each agent's `tools:` is
checked against the built-in tools, each model name as the engine parses it, and (at serve start and in
`config check`) every model's variables against the project's profiles. Under `miniroom serve` the folder of
config.yaml is the project whose `.miniroom/` applies to every agent, so a model's
`AGENT_BACKEND=mini:<name>` must name a profile of that folder's `.miniroom/miniagent.yml`; the rules are
the runtime's own (`miniroom.agent.profile.model_variable_problems`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from miniroom.agent.profile import model_variable_problems, parse_variables, read_profiles
from miniroom.agent.tool_names import unmet_requirements
from miniroom.agent.variables import ProfileError
from miniroom.config.config_yaml import (
    ConfigCheck,
    ConfigError,
    LlmJudgment,
    RoomsConfig,
    config_error,
    judgments,
    read_config,
    validate_config_data,
)
from miniroom.config.paths import PROFILE_FILE
from miniroom.config.problems import Finding, Loc, Problem, did_you_mean, key_path
from miniroom.config.yaml_source import YamlSource
from miniroom.llm import (
    NAME_EXAMPLE,
    MissingApiKeyError,
    ModelConfigError,
    agent_dir_from_env,
    native_tools,
    parse_model_name,
    resolve_model,
)
from miniroom.tools import BUILTIN_TOOL_NAMES

__all__ = [
    "check_config_file",
    "config_model_problems",
    "load_checked_config",
    "load_config",
    "validate_config",
]


def _tool_problems(config: RoomsConfig) -> list[Finding]:
    """An agent's `tools:` allowlist names built-in tools only."""
    problems = []
    for name, agent in config.agents.items():
        where = ("agents", name, "tools")
        for index, tool in enumerate(agent.tools):
            if tool not in BUILTIN_TOOL_NAMES:
                hint = (
                    did_you_mean(tool, BUILTIN_TOOL_NAMES) or f"the tools are {', '.join(BUILTIN_TOOL_NAMES)}"
                )
                problems.append(Finding((*where, index), f'"{tool}" is not a built-in tool ({hint})'))
        problems += [Finding(where, problem) for problem in unmet_requirements(agent.tools)]
    return problems


def _model_name_problems(config: RoomsConfig) -> list[Finding]:
    """Each `models.<alias>.model` is a `provider/id:thinking` name the engine can use."""
    problems = []
    for alias, model in config.models.items():
        if "/" not in model.model:
            message = (
                f'"{model.model}" has no provider; write it as provider/model[:thinking], e.g. {NAME_EXAMPLE}'
            )
            problems.append(Finding(("models", alias, "model"), message))
            continue
        try:
            parse_model_name(model.model)
        except ModelConfigError as error:
            problems.append(Finding(("models", alias, "model"), str(error)))
    return problems


def _judgment_model_problems(config: RoomsConfig) -> list[Finding]:
    """A judgment model must answer without tools: a provider mode adding tools it cannot drop is refused."""
    problems = []
    for name, agent in config.agents.items():
        for section, judgment in judgments(agent):
            if not isinstance(judgment, LlmJudgment) or judgment.model not in config.models:
                continue  # typesafe, or an unknown alias the schema check reports
            entry = config.models[judgment.model]
            try:
                brought = native_tools(parse_model_name(entry.model))
            except ModelConfigError:
                continue  # the model's own entry reports it
            if brought:
                message = (
                    f'model alias "{judgment.model}" ({entry.model}) cannot judge: {brought}, and a '
                    "judgment runs with no tools; choose an alias of a plain model"
                )
                problems.append(Finding(("agents", name, section, "judgment", "model"), message))
    return problems


PROGRAM_CHECKS: tuple[ConfigCheck, ...] = (_tool_problems, _model_name_problems, _judgment_model_problems)


def load_config(path: str | Path) -> RoomsConfig:
    """Read and validate `path`; `ConfigError` names the file, line, key and fix for every problem."""
    return read_config(Path(path), PROGRAM_CHECKS)[0]


def validate_config(data: object, *, source: str = "config.yaml") -> RoomsConfig:
    """Validate parsed `config.yaml` data that has no file (e.g. a web form); ConfigError as above."""
    return validate_config_data(data, PROGRAM_CHECKS, source=source)


def load_checked_config(path: Path) -> RoomsConfig:
    """config.yaml, valid and with every model's variables usable; ConfigError lists every problem."""
    config, parsed = read_config(path, PROGRAM_CHECKS)
    problems = config_model_problems(config, parsed, path.parent)
    if problems:
        raise config_error(problems, str(path))
    return config


def check_config_file(path: Path, env: Mapping[str, str] | None = None) -> list[Problem]:
    """Everything wrong in a config.yaml, with line numbers (for `config check`); a model the engine cannot
    resolve in `env` (an unknown provider) is a warning, as `serve` warns of it."""
    try:
        config, parsed = read_config(path, PROGRAM_CHECKS)
    except ConfigError as error:
        return list(error.problems) or [Problem(path, None, "", str(error))]
    found = config_model_problems(config, parsed, path.parent)
    found += [
        warning
        for warning in _model_warnings(config, parsed, os.environ if env is None else env)
        if not any(problem.key.startswith(warning.key.rpartition(".")[0] + ".") for problem in found)
    ]  # a model whose variables are wrong is reported there once
    return sorted(found, key=lambda problem: problem.line or 0)


def _model_warnings(config: RoomsConfig, parsed: YamlSource, env: Mapping[str, str]) -> list[Problem]:
    """Each model alias that cannot be resolved for a reason of the settings (not a missing key, which is
    the environment's to set)."""
    problems = []
    for alias, entry in config.models.items():
        try:
            variables = parse_variables(entry.variables)
            resolve_model(entry.model, {**env, **variables}, agent_dir_from_env(env))
        except (MissingApiKeyError, ProfileError):
            continue  # the environment's to set, or the variables' own problem, reported above
        except ModelConfigError as error:
            loc = ("models", alias, "model")
            message = f"{error} `miniroom serve` starts, but the requests of this model fail."
            problems.append(Problem(parsed.path, parsed.line_of(loc), key_path(loc), message, "warning"))
    return problems


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
