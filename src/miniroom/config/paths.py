"""Where miniroom finds config.yaml, and the runtime's data folder beside it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

DATA_DIR_NAME = "miniroom_data"
DEFAULT_CONFIG = "config.yaml"


def config_path(argument: str | None, env: Mapping[str, str], folder: Path = Path()) -> Path:
    """--config, else MINIROOM_CONFIG, else config.yaml in `folder` (the working folder)."""
    return Path(argument or env.get("MINIROOM_CONFIG") or folder / DEFAULT_CONFIG).expanduser()


def data_dir_for(config: Path, env: Mapping[str, str]) -> Path:
    """MINIROOM_DATA_DIR, else `miniroom_data/` beside config.yaml."""
    configured = env.get("MINIROOM_DATA_DIR")
    if configured:
        return Path(configured).expanduser()
    return config.resolve().parent / DATA_DIR_NAME
