"""A `.env` beside config.yaml: `NAME=value` lines for secrets kept out of config.yaml."""

from __future__ import annotations

import io
from pathlib import Path

from dotenv import dotenv_values

from miniroom.config.settings_file import read_settings_text

DOTENV = ".env"


def read_dotenv(folder: Path) -> dict[str, str]:
    """The variables of `folder/.env` (none when it is missing); SettingsFileError when it is not a small
    regular UTF-8 file. A name without a value is left out."""
    try:
        text = read_settings_text(folder / DOTENV)
    except FileNotFoundError:
        return {}
    values = dotenv_values(stream=io.StringIO(text))
    return {name: value for name, value in values.items() if value is not None}
