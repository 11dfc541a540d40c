"""The settings a service type takes: each with a kind (text, number, url, secret, enum), a default, and
whether it is required; checking one value against its kind is pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from miniroom.config.paths import FETCH_FILE, SEARCH_FILE

Kind = Literal["text", "number", "url", "secret", "enum"]
# A value that holds a variable reference is checked only once it is expanded, at call time.
_REFERENCE = re.compile(r"\$(\{)?[A-Za-z_]")


class ServiceKind(Enum):
    """Which catalogue a type belongs to, and so which tool uses it."""

    FETCH = "fetch"
    SEARCH = "search"

    @property
    def path(self) -> Path:
        """Its catalogue inside the project."""
        return FETCH_FILE if self is ServiceKind.FETCH else SEARCH_FILE

    @property
    def file_name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class SettingSpec:
    """One setting of a type, as the type tables give it."""

    name: str
    kind: Kind
    default: str | None = None
    required: bool = False
    choices: tuple[str, ...] = ()  # the values of an enum, in their canonical spelling
    note: str = ""  # what the value is, for people (the settings page shows it)


@dataclass(frozen=True)
class ServiceType:
    """A service type: its name as the tables spell it, what it does, its settings, and the module that runs
    it (imported only when a service of the type runs)."""

    name: str
    kind: ServiceKind
    summary: str
    settings: tuple[SettingSpec, ...]
    module: str
    spec_by_name: Mapping[str, SettingSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "spec_by_name", {spec.name: spec for spec in self.settings})


def has_reference(text: str) -> bool:
    return _REFERENCE.search(text) is not None


def value_problem(spec: SettingSpec, value: str) -> str | None:
    """Why `value` (text, as expanded) does not fit the setting's kind, or None when it does."""
    if spec.kind == "number":
        return _number_problem(value)
    if spec.kind == "url":
        return _url_problem(value)
    if spec.kind == "enum" and canonical_choice(spec, value) is None:
        return f"must be one of {', '.join(spec.choices)}"
    return None


def canonical_choice(spec: SettingSpec, value: str) -> str | None:
    """The enum value `value` names, case-insensitively, or None."""
    return next((choice for choice in spec.choices if choice.lower() == value.strip().lower()), None)


def _number_problem(value: str) -> str | None:
    try:
        number = float(value)
    except ValueError:
        return "must be a number above zero"
    if not number > 0 or number == float("inf"):
        return "must be a number above zero"
    return None


def _url_problem(value: str) -> str | None:
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "must be an absolute http:// or https:// address"
    return None
