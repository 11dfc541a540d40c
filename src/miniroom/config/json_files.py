"""Small JSON state files every layer keeps: replaced atomically, read forgivingly."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def write_json_atomically(path: Path, data: object) -> None:
    """Write `data` so that a crash leaves either the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(data, file, ensure_ascii=False, indent=1)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object stored at `path`; a missing or unreadable file reads as empty (and is logged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.error("%s cannot be read (%s); starting from an empty state", path, error)
        return {}
    return data if isinstance(data, dict) else {}
