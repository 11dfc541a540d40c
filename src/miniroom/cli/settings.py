"""`miniroom config check` and `miniroom profile show`: the project's settings, validated and explained."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from pathlib import Path

from miniroom.agent.config_check import check_project
from miniroom.agent.profile import ProfileError, parse_variables, resolve_profile
from miniroom.cli.common import CommandError, fail, working_folder
from miniroom.rooms.config import ConfigError, RoomsConfig, load_config


def config_path(env: Mapping[str, str], folder: Path) -> Path:
    return Path(env.get("MINIROOM_CONFIG") or folder / "config.yaml")


def config_check_command(args: argparse.Namespace) -> int:
    """Validate every `.miniroom/` file and config.yaml in DIR; exit 1 when any has an error."""
    folder = Path(args.dir or ".").expanduser()
    if not folder.is_dir():
        return fail(f"{folder}: no such folder.")
    problems = check_project(folder)
    lines = [f"{problem.severity}: {problem}" for problem in problems]
    errors = sum(problem.severity == "error" for problem in problems)
    config = Path(args.config) if args.config else config_path(os.environ, folder)
    if config.exists():
        try:
            load_config(config)
        except ConfigError as error:
            lines.append(f"error: {error}")
            errors += 1
    for line in lines:
        print(line)
    if errors:
        print(f"{errors} error(s) found.")
        return 1
    print("All settings files are valid." if not lines else "No errors (see the warnings above).")
    return 0


def _model_variables(alias: str, folder: Path) -> dict[str, str]:
    """The `variables:` of a model alias in config.yaml."""
    path = config_path(os.environ, folder)
    try:
        config: RoomsConfig = load_config(path)
    except ConfigError as error:
        raise CommandError(str(error)) from None
    if alias not in config.models:
        known = ", ".join(sorted(config.models)) or "none"
        raise CommandError(f"No model '{alias}' in {path} (models: {known}).")
    return parse_variables(config.models[alias].variables)


def profile_show_command(args: argparse.Namespace) -> int:
    """Print the resolved profile as JSON: each setting's value and where it came from."""
    try:
        folder = working_folder(args)
        env = dict(os.environ)
        if args.name:
            env["AGENT_BACKEND"] = f"mini:{args.name}"
        variables = _model_variables(args.model, folder) if args.model else {}
        resolved = resolve_profile(folder, env, variables)
    except (CommandError, ProfileError) as error:
        return fail(str(error))
    print(json.dumps(resolved.to_json(), indent=2, ensure_ascii=False))
    return 0
