"""Every settings file a project has, each with the one validator its loader uses: the registry.

How a settings file is validated: its module has one `check_<file>(path) -> list[Problem]` (a `Validator`)
that reads the file the way its loader does and returns every error and warning, each with its line; the
loader reports the same problems (or refuses the file), `miniroom config check` prints them, and the web
settings pages show them. A new `.miniroom/` file joins by adding its path and validator to `VALIDATORS`
below, the one list of them. `config.yaml`, found by `--config` or `MINIROOM_CONFIG` rather than in
`.miniroom/`, has its own: `miniroom.agent.config_yaml_check.check_config_file`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from miniroom.agent.profile import check_profile_file
from miniroom.config.paths import FETCH_FILE, HOOKS_FILE, MCP_FILE, PROFILE_FILE, RETRY_FILE, SEARCH_FILE
from miniroom.config.problems import Problem, Validator
from miniroom.engine import check_retry_file
from miniroom.hooks.config import check_hooks_file
from miniroom.mcp.config import check_mcp_file
from miniroom.web.catalogue import check_fetch_file, check_search_file

__all__ = ["VALIDATORS", "check_file", "check_project"]

# Path inside the project -> its validator: a new settings file joins here.
VALIDATORS: Mapping[Path, Validator] = MappingProxyType(
    {
        PROFILE_FILE: check_profile_file,
        RETRY_FILE: check_retry_file,
        FETCH_FILE: check_fetch_file,
        SEARCH_FILE: check_search_file,
        MCP_FILE: check_mcp_file,
        HOOKS_FILE: check_hooks_file,
    }
)


def _validator_for(path: Path) -> Validator | None:
    return next((check for known, check in VALIDATORS.items() if known.name == path.name), None)


def check_file(path: Path) -> list[Problem]:
    """Check one settings file, chosen by its name (e.g. a config.yaml given with --config)."""
    validate = _validator_for(path)
    if validate is None:
        known = ", ".join(sorted(known.name for known in VALIDATORS))
        return [Problem(path, None, "", f"is not a settings file miniroom knows; it reads {known}")]
    return validate(path)


def _misnamed_files(project_dir: Path) -> list[Problem]:
    """Warn about `miniagent.yaml` and the like: files miniroom would silently never read."""
    problems = []
    for known in VALIDATORS:
        for other_suffix in (".yml", ".yaml"):
            twin = project_dir / known.with_suffix(other_suffix)
            if other_suffix != known.suffix and twin.exists():
                message = f"miniroom reads {known.name}, never this file: rename it to {known.name}"
                problems.append(Problem(twin, None, "", message, "warning"))
    return problems


def check_project(project_dir: Path) -> list[Problem]:
    """Every problem in the project's settings files, in line order; a missing file is no problem."""
    problems: list[Problem] = []
    for relative, validate in VALIDATORS.items():
        path = project_dir / relative
        if path.exists():
            problems.extend(sorted(validate(path), key=lambda problem: problem.line or 0))
    return problems + _misnamed_files(project_dir)
