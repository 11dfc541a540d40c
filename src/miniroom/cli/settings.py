"""`miniroom config check` and `miniroom profile show`: the project's settings, validated and explained."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from miniroom.agent import (
    VALIDATORS,
    check_config_file,
    check_project,
    load_config,
    parse_variables,
    resolve_profile,
)
from miniroom.cli.common import CommandError, fail, working_folder
from miniroom.config.config_yaml import RoomsConfig, UnknownModel
from miniroom.config.paths import config_path
from miniroom.hooks.config import load_hooks
from miniroom.llm import MODELS_JSON, agent_dir_from_env, check_models_file


def config_check_command(args: argparse.Namespace) -> int:
    """Validate every `.miniroom/` file and config.yaml in DIR; exit 1 when any has an error."""
    folder = Path(args.dir or ".").expanduser()
    if not folder.is_dir():
        return fail(f"{folder}: no such folder.")
    config = config_path(args.config, os.environ, folder)
    settings = [folder / relative for relative in VALIDATORS]
    models = agent_dir_from_env(os.environ) / MODELS_JSON  # every project's models, so checked with each
    problems = check_project(folder) + check_models_file(models)
    if args.config or config.exists():
        problems += [problem for problem in check_config_file(config) if problem not in problems]
    elif not problems and not any(path.exists() for path in [*settings, models]):
        looked_for = ", ".join(str(path) for path in [*VALIDATORS, _relative(config, folder)])
        print(f"No settings files found in {folder} (looked for {looked_for}); nothing to check.")
        return 0
    for problem in problems:
        print(f"{problem.severity}: {problem}")
    errors = sum(problem.severity == "error" for problem in problems)
    if errors:
        print(f"{errors} error(s) found.")
        return 1
    print("All settings files are valid." if not problems else "No errors (see the warnings above).")
    return 0


def _relative(path: Path, folder: Path) -> Path:
    return path.relative_to(folder) if path.is_relative_to(folder) else path


def model_variables(alias: str, folder: Path) -> dict[str, str]:
    """The `variables:` of a model alias in config.yaml."""
    path = config_path(None, os.environ, folder)
    config: RoomsConfig = load_config(path)
    try:
        entry = config.model_entry(alias)
    except UnknownModel as error:
        raise CommandError(f"No model '{alias}' in {path} (models: {error.known}).") from None
    # The same `config.yaml:14: models.<alias>.variables[2]: ...` lines as `config check` and `serve` print.
    own = f"models.{alias}.variables"
    problems = [problem for problem in check_config_file(path) if problem.key.startswith(own)]
    if problems:
        raise CommandError("\n".join(str(problem) for problem in problems))
    return parse_variables(entry.variables)


def profile_show_command(args: argparse.Namespace) -> int:
    """Print the resolved profile as JSON: each setting's value and where it came from."""
    folder = working_folder(args)
    env = dict(os.environ)
    if args.name:
        env["AGENT_BACKEND"] = f"mini:{args.name}"
    variables = model_variables(args.model, folder) if args.model else {}
    resolved = resolve_profile(folder, env, variables)
    shown = resolved.to_json()
    settings, problems = load_hooks(folder)
    shown["warnings"] += [str(problem) for problem in problems]  # a broken file sets no rule: say why
    for key, rules in (("ask", settings.ask), ("deny", settings.deny)):
        # hooks.yml's rules on calls: `ask` (wait for approval) and `deny`, each as written and where
        shown[key] = [{"rule": rule.text, "where": rule.where} for rule in rules]
    print(json.dumps(shown, indent=2, ensure_ascii=False))
    return 0
