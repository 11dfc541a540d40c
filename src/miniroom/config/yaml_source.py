"""Settings files in YAML, kept with the line of every key and of every key written twice."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError

from miniroom.config.bounded_yaml import (
    MAX_NESTING,
    OFFSETS_IN_BYTES,
    BoundedLoader,
    ShapeError,
    check_aliases,
    too_deep,
)
from miniroom.config.problems import Loc, Problem, Severity, key_path, quote_hint
from miniroom.config.settings_file import SettingsFileError, read_settings_text

_MERGE_TAG = "tag:yaml.org,2002:merge"
_TEXT_TAGS = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:null")


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
    on, which is the next line for a nested block (`key:` then indented lines). `written` holds each value
    written unquoted that YAML reads as other than text (`Off`, `1.10`, `2024-01-01`), as it is spelled.
    """

    path: Path
    data: Any
    lines: Mapping[Loc, int]
    problems: tuple[Problem, ...] = ()
    value_lines: Mapping[Loc, int] = field(default_factory=dict)
    duplicates: tuple[DuplicateKey, ...] = ()
    written: Mapping[Loc, str] = field(default_factory=dict)

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

    def quote_hint(self, loc: Loc, value: object) -> str:
        """For `value` at `loc` where text was expected: how to quote it (see `problems.quote_hint`)."""
        return quote_hint(value, self.written.get(loc))


class _LineWalker:
    """Walks the composed node tree (before construction) noting each key's line and keys written twice."""

    def __init__(self, loader: yaml.SafeLoader) -> None:
        self.loader = loader
        self.lines: dict[Loc, int] = {}
        self.value_lines: dict[Loc, int] = {}
        self.duplicates: list[DuplicateKey] = []
        self.written: dict[Loc, str] = {}

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
        elif isinstance(node, yaml.ScalarNode) and not node.style and node.tag not in _TEXT_TAGS:
            self.written[loc] = node.value  # plain (style None, or "" from libyaml): `Off` before it is false

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
    """Parse one YAML document; raise SettingsFileError (with the line) when it is not valid YAML."""
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
        raise SettingsFileError(_marked_problem(error, path, walker)) from None
    except yaml.reader.ReaderError as error:
        raise SettingsFileError(_reader_problem(error, text, path)) from None
    except yaml.YAMLError as error:
        raise SettingsFileError(Problem(path, None, "", f"not valid YAML: {error}")) from None
    finally:
        if loader is not None:
            loader.dispose()
    problems = tuple(Problem(path, twice.line, _key(twice.loc), _twice(twice)) for twice in walker.duplicates)
    return YamlSource(
        path, data, walker.lines, problems, walker.value_lines, tuple(walker.duplicates), walker.written
    )


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
    """Read and parse `path`; raise SettingsFileError when it cannot be read or parsed."""
    try:
        text = read_settings_text(path)
    except FileNotFoundError as error:
        raise SettingsFileError(Problem(path, None, "", f"cannot be read: {error.strerror}")) from None
    return parse_yaml(text, path)
