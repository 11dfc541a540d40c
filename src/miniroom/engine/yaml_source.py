"""Settings files in YAML, kept with the line of every key, and validation problems phrased for people."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic.alias_generators import to_camel
from pydantic_core import ErrorDetails, PydanticCustomError

Severity = Literal["error", "warning"]
Loc = tuple[str | int, ...]
CUSTOM_ERROR = "invalid_setting"  # the error type of our own rules: their message is already for people
_MERGE_TAG = "tag:yaml.org,2002:merge"


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a settings file, printed as `path:line: key: message`."""

    path: Path
    line: int | None
    key: str
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"

    def detail(self) -> str:
        """The problem without the file name: `line 7: key: message`."""
        return ": ".join(
            part for part in (f"line {self.line}" if self.line else "", self.key, self.message) if part
        )


class YamlSourceError(Exception):
    """A file that cannot be read or is not YAML at all."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def dotted(loc: Loc) -> str:
    """`("profiles", "safe", "enabledTools", 1)` -> `profiles.safe.enabledTools[1]`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


@dataclass(frozen=True)
class YamlSource:
    """A parsed file: its plain data, the line of each key (by location), and problems found while reading."""

    path: Path
    data: Any
    lines: Mapping[Loc, int]
    problems: tuple[Problem, ...] = ()

    def line_of(self, loc: Loc) -> int | None:
        """The line of `loc`, else of its nearest ancestor that has one."""
        for end in range(len(loc), -1, -1):
            line = self.lines.get(loc[:end])
            if line is not None:
                return line
        return None

    def problem(self, loc: Loc, message: str, severity: Severity = "error") -> Problem:
        return Problem(self.path, self.line_of(loc), dotted(loc), message, severity)


class _LineWalker:
    """Walks the composed node tree (before construction) noting each key's line and keys written twice."""

    def __init__(self, path: Path, loader: yaml.SafeLoader) -> None:
        self.path = path
        self.loader = loader
        self.lines: dict[Loc, int] = {}
        self.problems: list[Problem] = []
        self._open: set[int] = set()  # nodes on the current path: an alias may point back up (`&a [*a]`)

    def walk(self, node: yaml.Node, loc: Loc) -> None:
        if id(node) in self._open:
            return
        self._open.add(id(node))
        if isinstance(node, yaml.MappingNode):
            self._walk_mapping(node, loc)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self.lines[(*loc, index)] = item.start_mark.line + 1
                self.walk(item, (*loc, index))
        self._open.discard(id(node))

    def _walk_mapping(self, node: yaml.MappingNode, loc: Loc) -> None:
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                continue  # `<<: *anchor` merges keys written elsewhere; they keep the parent's line
            # Key locations use the key as the data holds it (`yes:` is True there), as pydantic reports it.
            key, line = str(self.loader.construct_object(key_node)), key_node.start_mark.line + 1
            if key in seen:
                message = (
                    f"is written twice (lines {seen[key]} and {line}); YAML keeps only the last: delete one"
                )
                self.problems.append(Problem(self.path, line, dotted((*loc, key)), message))
            seen[key] = line
            self.lines[(*loc, key)] = line  # the last one wins, as in the data
            self.walk(value_node, (*loc, key))


def parse_yaml(text: str, path: Path) -> YamlSource:
    """Parse one YAML document; raise YamlSourceError (with the line) when it is not valid YAML."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        walker = _LineWalker(path, loader)
        if node is not None:
            walker.lines[()] = node.start_mark.line + 1
            walker.walk(node, ())
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        reason = error.problem or error.context or "unreadable"
        message = f"not valid YAML: {reason}; check the indentation and quoting there"
        raise YamlSourceError(Problem(path, line, "", message)) from None
    except yaml.YAMLError as error:
        raise YamlSourceError(Problem(path, None, "", f"not valid YAML: {error}")) from None
    finally:
        loader.dispose()
    return YamlSource(path, data, walker.lines, tuple(walker.problems))


def load_yaml(path: Path) -> YamlSource:
    """Read and parse `path`; raise YamlSourceError when it cannot be read or parsed."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise YamlSourceError(Problem(path, None, "", "is not UTF-8 text: save it as UTF-8")) from None
    except OSError as error:
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


def invalid(message: str, **context: object) -> PydanticCustomError:
    """An error for our own rules; `message` may use `{name}` placeholders filled from `context`."""
    return PydanticCustomError(CUSTOM_ERROR, message, dict(context))


def positive_whole_or_none(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
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


def _unknown_key_message(key: object, model: type[BaseModel] | None) -> str:
    if model is None:
        return "unknown key: delete it"
    valid = [field.alias or name for name, field in model.model_fields.items()]
    close = difflib.get_close_matches(str(key), valid, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"unknown key: {hint}the valid keys are {', '.join(valid)}"


def error_message(item: ErrorDetails, model: type[BaseModel] | None = None) -> str:
    """Pydantic's error as a person's message; `model` lists valid keys for an unknown top-level key."""
    kind, got = item["type"], describe_value(item.get("input"))
    if kind == CUSTOM_ERROR:
        return item["msg"]
    if kind == "extra_forbidden":
        return _unknown_key_message(item["loc"][-1], model if len(item["loc"]) == 1 else None)
    if kind == "missing":
        return "is required: add it"
    if kind in ("bool_type", "bool_parsing"):
        return f"must be true or false, got {got}"
    if kind in ("string_type", "str_type"):
        return f"must be text, got {got}"
    if kind == "list_type":
        return f"must be a list (one `- item` per line), got {got}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"must be a mapping of keys to values, got {got}"
    if kind == "literal_error":
        return f"must be one of {item.get('ctx', {}).get('expected', '')}, got {got}"
    return f"{item['msg']}, got {got}"


def validation_problems(
    source: YamlSource, error: ValidationError, model: type[BaseModel], prefix: Sequence[str | int] = ()
) -> list[Problem]:
    """One Problem per pydantic error, located in `source` under `prefix` (where `model` was validated)."""
    return [source.problem((*prefix, *item["loc"]), error_message(item, model)) for item in error.errors()]
