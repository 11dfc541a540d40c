"""Settings files in YAML, kept with the line of every key, and validation problems phrased for people."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic.alias_generators import to_camel
from pydantic_core import ErrorDetails
from yaml.constructor import ConstructorError

from miniroom.engine.bounded_yaml import (
    MAX_NESTING,
    OFFSETS_IN_BYTES,
    BoundedLoader,
    ShapeError,
    check_aliases,
    too_deep,
)
from miniroom.settings_errors import (
    CUSTOM_ERROR,
    Loc,
    Problem,
    Severity,
    Wording,
    did_you_mean,
    findings,
    invalid,
    key_path,
    phrase,
)
from miniroom.settings_file import SettingsFileError, read_settings_text

__all__ = [
    "CUSTOM_ERROR",
    "DuplicateKey",
    "Loc",
    "OptionalPositiveWhole",
    "Problem",
    "SettingsModel",
    "Severity",
    "YamlSource",
    "YamlSourceError",
    "describe_value",
    "error_message",
    "invalid",
    "load_yaml",
    "parse_yaml",
    "positive_whole_or_none",
    "validation_problems",
]

_MERGE_TAG = "tag:yaml.org,2002:merge"


# A file that cannot be read or is not YAML at all; one type with every other settings file's read errors.
YamlSourceError = SettingsFileError


@dataclass(frozen=True)
class DuplicateKey:
    """A key written again in one mapping: on `line`, after `previous_line` (and first on `first_line`)."""

    loc: Loc
    first_line: int
    previous_line: int
    line: int


@dataclass(frozen=True)
class YamlSource:
    """A parsed file: its plain data, the line of each key (by location), and problems found while reading.

    `lines` holds the line of each key (of each item, in a list); `value_lines` the line each value starts
    on, which is the next line for a nested block (`key:` then indented lines).
    """

    path: Path
    data: Any
    lines: Mapping[Loc, int]
    problems: tuple[Problem, ...] = ()
    value_lines: Mapping[Loc, int] = field(default_factory=dict)
    duplicates: tuple[DuplicateKey, ...] = ()

    def line_of(self, loc: Loc, *, at_key: bool = True) -> int | None:
        """The line of `loc` (of its value with `at_key=False`), else of its nearest ancestor that has one."""
        lines = self.lines if at_key else self.value_lines
        for end in range(len(loc), -1, -1):
            line = lines.get(loc[:end])
            if line is not None:
                return line
        return None

    def problem(self, loc: Loc, message: str, severity: Severity = "error") -> Problem:
        return Problem(self.path, self.line_of(loc), _key(loc), message, severity)


class _LineWalker:
    """Walks the composed node tree (before construction) noting each key's line and keys written twice."""

    def __init__(self, loader: yaml.SafeLoader) -> None:
        self.loader = loader
        self.lines: dict[Loc, int] = {}
        self.value_lines: dict[Loc, int] = {}
        self.duplicates: list[DuplicateKey] = []

    def walk(self, node: yaml.Node, loc: Loc) -> None:
        # Recursion is bounded here, and the values aliases add by check_aliases beforehand.
        if len(loc) > MAX_NESTING:
            raise too_deep(node)
        self.value_lines[loc] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            self._walk_mapping(node, loc)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self.lines[(*loc, index)] = item.start_mark.line + 1
                self.walk(item, (*loc, index))

    def key_on(self, line: int) -> str:
        """The deepest key whose value starts on `line` (where a value failed to convert), else nothing."""
        found = [loc for loc, value_line in self.value_lines.items() if value_line == line]
        return _key(max(found, key=len)) if found else ""

    def _walk_mapping(self, node: yaml.MappingNode, loc: Loc) -> None:
        seen: dict[str, list[int]] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                continue  # `<<: *anchor` merges keys written elsewhere; they keep the parent's line
            # Key locations use the key as the data holds it (`yes:` is True there), as pydantic reports it.
            key, line = str(self.loader.construct_object(key_node)), key_node.start_mark.line + 1
            earlier = seen.setdefault(key, [])
            if earlier:
                self.duplicates.append(DuplicateKey((*loc, key), earlier[0], earlier[-1], line))
            earlier.append(line)
            self.lines[(*loc, key)] = line  # the last one wins, as in the data
            self.walk(value_node, (*loc, key))


def parse_yaml(text: str, path: Path) -> YamlSource:
    """Parse one YAML document; raise YamlSourceError (with the line) when it is not valid YAML."""
    loader: BoundedLoader | None = None
    walker: _LineWalker | None = None
    try:
        loader = BoundedLoader(text)
        node = loader.get_single_node()
        walker = _LineWalker(loader)
        if node is not None:
            if "&" in text:  # without an anchor there is no alias
                check_aliases(node)
            walker.lines[()] = node.start_mark.line + 1
            walker.walk(node, ())
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        raise YamlSourceError(_marked_problem(error, path, walker)) from None
    except yaml.reader.ReaderError as error:
        raise YamlSourceError(_reader_problem(error, text, path)) from None
    except yaml.YAMLError as error:
        raise YamlSourceError(Problem(path, None, "", f"not valid YAML: {error}")) from None
    finally:
        if loader is not None:
            loader.dispose()
    problems = tuple(Problem(path, twice.line, _key(twice.loc), _twice(twice)) for twice in walker.duplicates)
    return YamlSource(path, data, walker.lines, problems, walker.value_lines, tuple(walker.duplicates))


def _marked_problem(error: yaml.MarkedYAMLError, path: Path, walker: _LineWalker | None) -> Problem:
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark else None
    reason = error.problem or error.context or "unreadable"
    if isinstance(error, ConstructorError):  # YAML, but a value in it cannot be converted
        return Problem(path, line, walker.key_on(line) if walker and line else "", reason)
    if isinstance(error, ShapeError):
        return Problem(path, line, "", reason)
    return Problem(path, line, "", f"not valid YAML: {reason}; check the indentation and quoting there")


def _reader_problem(error: yaml.reader.ReaderError, text: str, path: Path) -> Problem:
    """A character YAML forbids anywhere in a file: a control character, or a lone surrogate."""
    before = text.encode("utf-8")[: error.position] if OFFSETS_IN_BYTES else text[: error.position].encode()
    line = before.count(b"\n") + 1
    character = error.character if isinstance(error.character, int) else ord(error.character)
    message = (
        f"contains the control character U+{character:04X}, which YAML does not allow: delete it, or "
        f"write it as \\x{character:02x} inside double quotes"
    )
    return Problem(path, line, "", message)


def _key(loc: Loc) -> str:
    """`profiles.safe.enabledTools[1]`: keys written plainly, nothing for the whole file."""
    return key_path(loc, top="", quote=False)


def _twice(duplicate: DuplicateKey) -> str:
    lines = f"lines {duplicate.previous_line} and {duplicate.line}"
    return f"is written twice ({lines}); YAML keeps only the last: delete one"


def load_yaml(path: Path) -> YamlSource:
    """Read and parse `path`; raise YamlSourceError when it cannot be read or parsed."""
    try:
        text = read_settings_text(path)
    except FileNotFoundError as error:
        raise YamlSourceError(Problem(path, None, "", f"cannot be read: {error.strerror}")) from None
    return parse_yaml(text, path)


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


MAX_WHOLE = 2**31 - 1  # beyond it a count or a timeout is a typo, and some provider APIs overflow


def positive_whole_or_none(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > MAX_WHOLE:
        raise invalid("must be at most {most}, got {got}", most=MAX_WHOLE, got=describe_value(value))
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise invalid("must be a whole number above zero, got {got}", got=describe_value(value))


OptionalPositiveWhole = Annotated[int | None, BeforeValidator(positive_whole_or_none)]


class SettingsModel(BaseModel):
    """The base of every file shape: camelCase keys, no unknown keys, no silent type coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _blank_means_unset(cls, data: Any) -> Any:
        # An empty value never zeroes a setting: it counts as unset and the default answers.
        if isinstance(data, dict):
            return {k: None if isinstance(v, str) and not v.strip() else v for k, v in data.items()}
        return data


def _unknown_key(key: str, valid: Sequence[str]) -> str:
    if not valid:
        return "unknown key: delete it"
    hint = did_you_mean(key, valid)
    return f"unknown key: {hint + ' ' if hint else ''}the valid keys are {', '.join(valid)}"


WORDING = Wording(
    unknown_key=_unknown_key,
    words={
        "missing": "is required: add it",
        "list": "must be a list (one `- item` per line)",
        "mapping": "must be a mapping of keys to values",
    },
    fallback="{msg}",
    got=", got {got}",
    show=describe_value,
    exact={"literal_error": "must be one of {expected}, got {got}"},
)


def error_message(item: ErrorDetails, model: type[BaseModel] | None = None) -> str:
    """Pydantic's error as a person's message; `model` (where it was validated) lists the valid keys."""
    return phrase(item, WORDING, model)


def validation_problems(
    source: YamlSource, error: ValidationError, model: type[BaseModel], prefix: Sequence[str | int] = ()
) -> list[Problem]:
    """One Problem per pydantic error, located in `source` under `prefix` (where `model` was validated)."""
    return [source.problem((*prefix, *found.loc), found.message) for found in findings(error, model, WORDING)]
