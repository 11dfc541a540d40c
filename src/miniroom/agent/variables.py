"""A model's `variables:` (`NAME=value` lines) and AGENT_BACKEND, read as text before any profile applies."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from miniroom.config.errors import UserError

MINI_BACKENDS = ("mini", "mini-agent")  # mini-agent: the legacy alias


class ProfileError(UserError, ValueError):
    """A profile setting that cannot be used; the message says what, where and how to fix it."""


class VariableProblem(NamedTuple):
    """A MINI_PROFILE_* or AGENT_BACKEND variable that cannot be used, and why."""

    name: str
    message: str


def profile_name_from_backend(value: str | None) -> str | None:
    """The profile an AGENT_BACKEND value picks (`mini:safe` -> `safe`), or None for the defaults."""
    text = (value or "").strip()
    if not text:
        return None
    backend, _, suffix = text.partition(":")
    if backend.strip().lower() not in MINI_BACKENDS:
        raise ProfileError(
            f"{text} names a backend miniroom does not have: miniroom has only the built-in `mini` backend; "
            "set AGENT_BACKEND=mini, or AGENT_BACKEND=mini:<profile> to use a profile from "
            ".miniroom/miniagent.yml"
        )
    return suffix.strip().lower() or None


_VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_variables(lines: Sequence[str]) -> dict[str, str]:
    """A model's `variables:` list (`NAME=value` lines) as a mapping; a later line wins."""
    variables: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue  # a blank entry sets nothing
        name, equals, value = line.partition("=")
        if not equals:
            # Show only a leading variable name: the line may be a key pasted without its name.
            first, *rest = line.split()
            shown = f" ('{first}{' ...' if rest else ''}')" if _VARIABLE_NAME.match(first) else ""
            raise ProfileError(f"Model variable {number}{shown} has no '=': write it as NAME=value.")
        if not _VARIABLE_NAME.match(name.strip()):
            raise ProfileError(
                f"Model variable {number} has the name '{name.strip()}': a variable name is letters, digits "
                "and '_', not starting with a digit (NAME=value)."
            )
        variables[name.strip()] = value.strip()
    return variables
