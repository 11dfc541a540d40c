"""`$NAME`, `${NAME}` and `${NAME:-default}` in settings values, filled from the model's variables, then the
process environment.

The rules, as users know them from shells, Docker Compose and Claude Code's `.mcp.json`:
- A name is letters, digits and `_`, not starting with a digit. The model's variables are looked at first,
  then the environment; an empty value counts as unset there, as everywhere in miniroom's settings.
- `${NAME:-default}` takes the default (as written, up to the first `}`) when NAME is unset.
- An unset NAME without a default keeps its text as written (`$NAME` stays `$NAME`) and yields one warning
  naming it. So does a `${...}` that is no reference (`${A B}`, a missing `}`).
- `$$` is one literal `$` (Docker Compose's escape; `.mcp.json` has none). A `$` before anything else stays.

Warnings name variables, never their values, so they are safe to log.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["Expansion", "expand", "expand_all", "filled_values"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# Groups: 1 `$$`; 2 a bare name; 3 a braced name, 4 its default (None without `:-`); 5 a `${...}` of neither.
_REFERENCE = re.compile(rf"\$(?:(\$)|({_NAME})|\{{({_NAME})(?::-([^}}]*))?\}}|(\{{[^}}]*\}}?))")


class Expansion(NamedTuple):
    """The text with every variable filled in, and one warning for each reference that was not."""

    text: str
    warnings: tuple[str, ...]


def expand(text: str, variables: Mapping[str, str], environ: Mapping[str, str]) -> Expansion:
    """`text` with `$NAME`, `${NAME}` and `${NAME:-default}` filled in (see the module's rules)."""
    if "$" not in text:
        return Expansion(text, ())
    warnings: dict[str, None] = {}  # ordered, and each warning once

    def fill(match: re.Match[str]) -> str:
        escape, bare, braced, default, malformed = match.groups()
        if escape:
            return "$"
        if malformed is not None:
            warnings[_not_a_reference(match.group())] = None
            return match.group()
        name = bare or braced
        value = variables.get(name) or environ.get(name)
        if value:
            return value
        if default is not None:
            return default
        warnings[_unset(name)] = None
        return match.group()

    return Expansion(_REFERENCE.sub(fill, text), tuple(warnings))


def expand_all(
    value: object, variables: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[object, list[str]]:
    """Every text in `value` (nested lists and mappings, as read from a settings file) expanded; keys are
    kept as written, other values unchanged. The warnings come once each."""
    warnings: dict[str, None] = {}

    def walk(item: object) -> object:
        if isinstance(item, str):
            expanded = expand(item, variables, environ)
            warnings.update(dict.fromkeys(expanded.warnings))
            return expanded.text
        if isinstance(item, list | tuple):
            return [walk(each) for each in item]
        if isinstance(item, Mapping):
            return {key: walk(each) for key, each in item.items()}
        return item

    return walk(value), list(warnings)


def filled_values(text: str, variables: Mapping[str, str], environ: Mapping[str, str]) -> list[str]:
    """The values `expand` fills into `text` from variables (defaults aside): what a log must not show."""
    values = []
    for match in _REFERENCE.finditer(text):
        name = match.group(2) or match.group(3)
        value = (variables.get(name) or environ.get(name)) if name else None
        if value:
            values.append(value)
    return values


def _unset(name: str) -> str:
    return (
        f"${name} is not set in the model's variables nor in the environment, and has no default, so it "
        f"stays as written: set {name}, or write ${{{name}:-default}}"
    )


def _not_a_reference(text: str) -> str:
    return (
        f"{text} is not a variable reference, so it stays as written: write ${{NAME}} or "
        "${NAME:-default}, or $$ for a literal $"
    )
