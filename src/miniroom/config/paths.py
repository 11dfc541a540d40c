"""Where miniroom finds config.yaml, the runtime's data folder beside it, and a project's settings files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

DATA_DIR_NAME = "miniroom_data"
DEFAULT_CONFIG = "config.yaml"
# A project's settings, each file inside its folder (the folder of config.yaml, or the working folder).
SETTINGS_FOLDER = Path(".miniroom")
PROFILE_FILE = SETTINGS_FOLDER / "miniagent.yml"
RETRY_FILE = SETTINGS_FOLDER / "retry.yml"
FETCH_FILE = SETTINGS_FOLDER / "fetch.yml"
SEARCH_FILE = SETTINGS_FOLDER / "search.yml"
MCP_FILE = SETTINGS_FOLDER / "mcp.yml"
HOOKS_FILE = SETTINGS_FOLDER / "hooks.yml"


def config_path(argument: str | None, env: Mapping[str, str], folder: Path = Path()) -> Path:
    """--config, else MINIROOM_CONFIG, else config.yaml in `folder` (the working folder)."""
    return Path(argument or env.get("MINIROOM_CONFIG") or folder / DEFAULT_CONFIG).expanduser()


def data_dir_for(config: Path, env: Mapping[str, str]) -> Path:
    """MINIROOM_DATA_DIR, else `miniroom_data/` beside config.yaml."""
    configured = env.get("MINIROOM_DATA_DIR")
    if configured:
        return Path(configured).expanduser()
    return config.resolve().parent / DATA_DIR_NAME
