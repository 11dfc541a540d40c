"""Settings problems phrased for people, whatever the file's format: key paths, pydantic errors, hints.

Format-neutral: YAML files add their lines (`miniroom.config.yaml_source`), `models.json` its JSON wording
(`miniroom.llm.models_json`).
"""

from __future__ import annotations

import datetime
import json
import re
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin

if TYPE_CHECKING:  # pydantic loads with the first model that validates a file, not with this module
    from pydantic import BaseModel, ValidationError
    from pydantic_core import ErrorDetails, PydanticCustomError

Severity = Literal["error", "warning"]
Loc = tuple[str | int, ...]
CUSTOM_ERROR = "invalid_setting"  # the error type of our own rules: their message is already for people
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_KEY_MARK = "[key]"  # pydantic's mark in a location for an error in a mapping's key, not its value


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a settings file, printed as `path:line: key: message`."""

    path: Path | str  # the file, or a name for where the settings came from (e.g. "web form")
    line: int | None
    key: str
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return printable(f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}")

    def detail(self) -> str:
        """The problem without the file name: `line 7: key: message`."""
        return ": ".join(
            part for part in (f"line {self.line}" if self.line else "", self.key, self.message) if part
        )


@dataclass(frozen=True)
class Finding:
    """A problem at a key path, before a file gives it a line; `at_key`: on the key's line (unknown keys)."""

    loc: Loc
    message: str
    at_key: bool = False


# Kinds of mistake: pydantic's error types for each, and the plain words a file's Wording may replace.
_KINDS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("missing", ("missing",), "this key is required"),
    ("boolean", ("bool_type", "bool_parsing"), "must be true or false"),
    ("text", ("string_type", "str_type"), "must be text"),
    ("number", ("float_type", "float_parsing"), "must be a number"),
    ("whole_number", ("int_type", "int_parsing"), "must be a whole number"),
    ("empty", ("string_too_short",), "must not be empty"),
    ("list", ("list_type",), "must be a list"),
    ("mapping", ("dict_type", "model_type", "model_attributes_type"), "must be a mapping"),
)
_TEXT_TYPES = ("string_type", "str_type")
_KIND_OF = {error_type: kind for kind, types, _ in _KINDS for error_type in types}
_WORDS = {kind: words for kind, _, words in _KINDS}


def _show_nothing(value: object) -> str:
    return ""


@dataclass(frozen=True)
class Wording:
    """How one kind of file phrases pydantic's errors.

    `words` replaces the plain words of a kind of mistake (`missing`, `list`, `mapping`, ...); errors of no
    kind use `fallback`, where `{msg}` is pydantic's message and `{must}` the same with "Input should be"
    made "must be". Except for a missing key, `got` follows, its `{got}` the value as `show` writes it.
    `exact` maps an error type to a whole message, its fields from pydantic's context (and `{got}`).
    `unknown_key` phrases an unknown key from the key and the keys allowed beside it.
    """

    unknown_key: Callable[[str, Sequence[str]], str]
    words: Mapping[str, str] = field(default_factory=dict)
    fallback: str = "{must}"
    got: str = ""
    show: Callable[[object], str] = field(default=_show_nothing)
    exact: Mapping[str, str] = field(default_factory=dict)


def printable(text: str) -> str:
    """`text` with each control or invisible character escaped (`\\x1b`), so a file cannot play tricks on
    the terminal that shows a message about it, nor split the message's line."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode() for char in text)


def describe_value(value: object) -> str:
    """A value as the user wrote it in YAML, for `got ...` in messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def camel_key(name: str) -> str:
    """The settings files' camelCase key of a snake_case setting name (`read_max_lines`: `readMaxLines`)."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def invalid(message: str, **context: object) -> PydanticCustomError:
    """An error for our own rules; `message` may use `{name}` placeholders filled from `context`."""
    from pydantic_core import PydanticCustomError

    return PydanticCustomError(CUSTOM_ERROR, message, dict(context))


def key_path(loc: Loc, top: str = "(the top level)", *, quote: bool = True) -> str:
    """`("agents", "my bot", "rooms", 0)` -> `agents["my bot"].rooms[0]`; the empty path is `top`.

    With `quote=False` every key is written plainly: `agents.my bot.rooms[0]`.
    """
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif not quote or _PLAIN_KEY.fullmatch(part):
            path += f".{part}" if path else part
        else:
            path += f"[{json.dumps(part, ensure_ascii=False)}]"
    return path or top


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """`did you mean X?` for the closest candidate, or None when nothing is close."""
    close = get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else None


def at_most(lines: Sequence[str], most: int, more: Callable[[int], str]) -> list[str]:
    """The first `most` lines, then `more(count)` for the `count` left out, if any were."""
    left_out = len(lines) - most
    return [*lines[:most], *([more(left_out)] if left_out > 0 else [])]


def quote_hint(value: object, written: str | None) -> str:
    """How to make text of a value YAML read as a boolean, number or date (`name: Off` is false, `1.10` the
    number 1.1) where text was expected; `written`: the value as the file spells it, when that is known."""
    if not isinstance(value, bool | int | float | datetime.date):
        return ""
    return (
        f" — write {json.dumps(written, ensure_ascii=False)} in quotes" if written else " — quote the value"
    )


def phrase(error: ErrorDetails, wording: Wording, model: type[BaseModel] | None = None) -> str:
    """Pydantic's error as a person's message; `model` (where it was validated) lists valid keys."""
    kind, context = error["type"], error.get("ctx", {})
    if kind == CUSTOM_ERROR:
        return error["msg"]
    if kind == "value_error":  # a ValueError from a validator: its text is the message
        return str(context.get("error", error["msg"]))
    if kind == "extra_forbidden":
        allowed = allowed_keys(model, error["loc"][:-1]) if model is not None else []
        return wording.unknown_key(str(error["loc"][-1]), allowed)
    got = wording.show(error.get("input"))
    if kind in wording.exact:
        return wording.exact[kind].format(**context, got=got)
    kind_name = _KIND_OF.get(kind)
    if kind_name is not None:
        words = wording.words.get(kind_name, _WORDS[kind_name])
    else:
        must = error["msg"].replace("Input should be", "must be", 1)
        words = wording.fallback.format(msg=error["msg"], must=must)
    return words if kind == "missing" else words + wording.got.format(got=got)


def findings(
    error: ValidationError,
    model: type[BaseModel],
    wording: Wording,
    written: Callable[[Loc], str | None] | None = None,
) -> list[Finding]:
    """One Finding per pydantic error, at the key path as the file writes it (see `schema_path`).

    `written` gives a value as a YAML file spells it (None for a value that came from anywhere else): text
    YAML read as a boolean or a number is told to be quoted (see `quote_hint`).
    """
    found = []
    for item in error.errors(include_url=False):
        loc = item["loc"]
        shown = (*schema_path(model, loc[:-1])[0], *loc[-1:])
        if item["type"] == "extra_forbidden":
            found.append(Finding(shown, phrase(item, wording, model), at_key=True))
            continue
        message = phrase(item, wording)
        if written is not None and item["type"] in _TEXT_TYPES and _KEY_MARK not in shown:
            message += quote_hint(item.get("input"), written(shown))
        found.append(Finding(tuple(part for part in shown if part != _KEY_MARK), message))
    return found


def allowed_keys(model: type[BaseModel], loc: Loc) -> list[str]:
    """The keys the schema accepts at `loc` (a path from `model`); none where no model is found."""
    node = schema_path(model, loc)[1]
    return [info.alias or name for name, info in node.model_fields.items()] if _is_model(node) else []


def schema_path(model: type[BaseModel], loc: Loc) -> tuple[Loc, Any]:
    """Follow `loc` through the schema: the path without union tags and `[key]` marks, and the type found."""
    shown: list[str | int] = []
    node: Any = model
    for part in loc:
        node = _unwrap(node)
        tagged = _tagged_members(node)
        if tagged is not None:  # pydantic names the union's member in `loc`; the file does not
            node = tagged.get(part)
            continue
        if part != _KEY_MARK:
            shown.append(part)
        if _is_model(node):
            info = {field.alias or name: field for name, field in node.model_fields.items()}.get(str(part))
            node = info.annotation if info else None
        elif get_origin(node) in (dict, list):
            node = get_args(node)[-1]
        else:
            node = None
    return tuple(shown), _unwrap(node)


def _unwrap(node: Any) -> Any:
    """Strip `Annotated[...]` and a `| None`."""
    if get_origin(node) is Annotated:
        node = get_args(node)[0]
    if get_origin(node) in (Union, types.UnionType):
        members = [arg for arg in get_args(node) if arg is not type(None)]
        if len(members) == 1:
            return _unwrap(members[0])
    return node


def _tagged_members(node: Any) -> dict[object, Any] | None:
    """For a union of models, each model by its literal tag values (pydantic puts the tag in `loc`)."""
    if get_origin(node) not in (Union, types.UnionType):
        return None
    members: dict[object, Any] = {}
    for member in get_args(node):
        if _is_model(member):
            for info in member.model_fields.values():
                if get_origin(info.annotation) is Literal:
                    members.update(dict.fromkeys(get_args(info.annotation), member))
    return members


def _is_model(node: Any) -> bool:
    from pydantic import BaseModel

    return isinstance(node, type) and issubclass(node, BaseModel)


# A settings file's one validator, `check_<file>(path)`: every problem in the file, errors and warnings.
Validator = Callable[[Path], list[Problem]]
