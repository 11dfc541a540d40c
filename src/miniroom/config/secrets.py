"""Secrets in settings files: which values are keys and passwords, masked when shown, restored when saved.

A value is secret when its key names one (`ApiKey`, `ProxyPassword`, `token`, ...), and so is the value of a
`NAME=value` line whose NAME does (`MINI_API_KEY=sk-...` in a model's `variables:`). A reference to a
variable (`$SERPER_API_KEY`) is no secret and shows as written. Pure: data in, data out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from miniroom.config.problems import key_path

SECRET_NAME = re.compile(r"password|passwd|token|secret|api_?key|access_?key", re.I)
MASK = "••••••••"
_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
_REFERENCE = re.compile(r"\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*\})")
Path = tuple[str | int, ...]


class SecretLost(ValueError):
    """A masked value came back where no saved value can be found to keep."""

    def __init__(self, path: Path) -> None:
        self.path = path
        where = key_path(path, quote=False)
        super().__init__(
            f"{where}: the masked value has no saved value to keep (the entry is new or was renamed): type "
            "the secret again, or press Show before copying it"
        )


def is_secret_value(value: object) -> bool:
    """Whether a secret setting's value is the secret itself: anything but a bare `$VAR` or `${VAR}`."""
    if isinstance(value, bool) or value is None:
        return False
    text = str(value).strip()
    return bool(text) and _REFERENCE.fullmatch(text) is None


def _secret_key(key: object) -> bool:
    return SECRET_NAME.search(str(key)) is not None


def _secret_line(item: str) -> tuple[str, str] | None:
    """(NAME, value) of a `NAME=value` line whose value is a secret."""
    match = _LINE.fullmatch(item)
    if match is None or not SECRET_NAME.search(match.group(1)) or not is_secret_value(match.group(2)):
        return None
    return match.group(1), match.group(2)


def masked(data: Any) -> tuple[Any, list[str]]:
    """A copy of `data` with every secret value replaced by MASK, and the values that were."""
    found: list[str] = []

    def walk(node: Any) -> Any:
        if isinstance(node, Mapping):
            copy = {}
            for key, value in node.items():
                if _secret_key(key) and not isinstance(value, dict | list) and is_secret_value(value):
                    copy[key] = MASK
                    found.append(str(value))
                else:
                    copy[key] = walk(value)
            return copy
        if isinstance(node, list):
            items = []
            for item in node:
                line = _secret_line(item) if isinstance(item, str) else None
                if line is not None:
                    items.append(f"{line[0]}={MASK}")
                    found.append(line[1])
                else:
                    items.append(walk(item))
            return items
        return node

    return walk(data), found


def unmasked(new: Any, current: Any, path: Path = ()) -> Any:
    """`new` with each MASK put back to the value `current` (the file as saved) has at the same place;
    raises SecretLost where there is none."""
    if isinstance(new, Mapping):
        saved = current if isinstance(current, Mapping) else {}
        result = {}
        for key, value in new.items():
            if value == MASK and _secret_key(key):
                if key not in saved or not is_secret_value(saved[key]):
                    raise SecretLost((*path, key))
                result[key] = saved[key]
            else:
                result[key] = unmasked(value, saved.get(key), (*path, key))
        return result
    if isinstance(new, list):
        saved_items = current if isinstance(current, list) else []
        return [_unmasked_item(item, index, saved_items, path) for index, item in enumerate(new)]
    return new


def _unmasked_item(item: Any, index: int, saved: list[Any], path: Path) -> Any:
    if isinstance(item, str) and item.endswith(f"={MASK}"):
        name = item[: -len(MASK) - 1]
        kept = [line for line in saved if isinstance(line, str) and line.partition("=")[0] == name]
        if not kept:
            raise SecretLost((*path, index))
        return kept[-1]
    return unmasked(item, _counterpart(item, index, saved), (*path, index))


def _counterpart(item: Any, index: int, saved: list[Any]) -> Any:
    """The saved entry `item` stands for: the one of the same `name` (lists of named entries get reordered
    and duplicated), else the one at the same place."""
    if isinstance(item, Mapping) and "name" in item:
        named = (old for old in saved if isinstance(old, Mapping) and old.get("name") == item["name"])
        return next(named, None)
    return saved[index] if index < len(saved) else None
