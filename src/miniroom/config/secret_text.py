"""Secrets in a settings file's text: masked where they are written, and put back from the saved text.

Each secret is masked at its value in the YAML (see `secrets.secret_parts`), and the same secret written
anywhere else (a comment) is masked too. A masked text sent back gets each masked value from the saved value
at the same key path (`secrets.counterpart`), written exactly as saved when it came back as it was shown, so
that an unchanged text is saved byte for byte. A file that is not YAML is masked and restored by line.
Pure: text in, text out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from miniroom.config.bounded_yaml import BoundedLoader
from miniroom.config.secrets import (
    MASK,
    MISSING,
    SecretLost,
    counterpart,
    is_secret_name,
    is_secret_value,
    loose,
    masked_value,
    restored_value,
    secret_parts,
)
from miniroom.config.secrets import Path as KeyPath
from miniroom.config.settings_file import SettingsFileError
from miniroom.config.yaml_source import parse_yaml

_MERGE_TAG = "tag:yaml.org,2002:merge"
_PROPERTIES = re.compile(r"(?:[&!]\S*\s+)*")  # an anchor or tag written before a value
# A file that is not YAML, by line: `key: value` and `- NAME=value` lines, the password of a URL, and
# `Name: value` within a line (a header in a quoted text, a flow mapping), its value up to a delimiter.
_BY_LINE = (
    re.compile(
        r"^(?P<head>[ \t]*(?:-[ \t]+)?[\"']?(?P<name>[\w.-]+)[\"']?[ \t]*:[ \t]+)(?P<value>\S.*?)"
        r"(?P<tail>(?:[ \t]+#.*)?)$",
        re.M,
    ),
    re.compile(
        r"^(?P<head>[ \t]*-[ \t]+[\"']?(?P<name>[A-Za-z_]\w*)=)(?P<value>.*?)"
        r"(?P<tail>[\"']?(?:[ \t]+#.*)?)$",
        re.M,
    ),
    re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:?#]*:)(?P<value>[^\s/@?#]+)(?P<tail>@)"),
)
_INNER_NAME = re.compile(r"(?<![\w-])([A-Za-z][\w-]*)[ \t]*:[ \t]*[\"']?")
_INNER_VALUE = re.compile(r"[^\"'\\\n,{}\[\]#]*")


@dataclass(frozen=True)
class _Scalar:
    """A scalar of the text: the `nth` written at `path` (keys written twice share one), written as
    `text[start:end]` and then `tail` (space a block ends with), read as `value`."""

    path: KeyPath
    nth: int
    start: int
    end: int
    tail: str
    value: Any


@dataclass(frozen=True)
class _Shown:
    """A scalar holding secrets: `raw` as written, `shown` with each of its `secrets` masked."""

    scalar: _Scalar
    raw: str
    shown: str
    secrets: tuple[str, ...]


def masked_text(text: str, path: Path) -> tuple[str, int]:
    """The text with each secret shown as MASK, and how many secrets that is."""
    try:
        parse_yaml(text, path)
    except SettingsFileError:
        return _masked_lines(text)
    values = list(_secret_values(text))
    return _spliced(text, values, shown=True), sum(len(value.secrets) for value in values)


def unmasked_text(new: str, saved: str, path: Path) -> str:
    """`new` (a text as sent) with each MASK put back to the saved secret it stands for: a masked value
    from the value at the same place in `saved`, a masked secret elsewhere (a comment) from the saved line
    it stood in. Raises SecretLost naming where a MASK has nothing to stand for, SettingsFileError when
    `new` is not YAML."""
    if MASK not in new:
        return new
    new_data = parse_yaml(new, path).data
    try:
        saved_data: Any = parse_yaml(saved, path).data
    except SettingsFileError:
        return _unmasked_lines(new, _masked_lines(saved)[0], saved)
    values = list(_secret_values(saved))
    shown = {(value.scalar.path, value.scalar.nth): value for value in values}
    restored: list[tuple[_Scalar, str, Any]] = []
    for scalar in _masked_scalars(new):
        was = counterpart(scalar.path, new_data, saved_data)
        before = shown.get((was, scalar.nth)) if was is not None else None
        old = before.scalar.value if before is not None else _at(saved_data, was or ())
        kept = restored_value(scalar.path, scalar.value, old if was is not None else MISSING)
        raw = before.raw if before is not None and kept is old else _rewritten(new, scalar, kept)
        restored.append((scalar, raw, kept))
    text = new
    for scalar, raw, _kept in reversed(restored):
        text = text[: scalar.start] + raw + text[scalar.end :]
    text = _unmasked_lines(text, _spliced(saved, values, shown=False), saved)
    _check(text, [(scalar, kept) for scalar, _raw, kept in restored])
    return text


def _check(text: str, restored: list[tuple[_Scalar, Any]]) -> None:
    """Each restored value reads back as it should (a value moved into another YAML form may not)."""
    try:
        reads = {(scalar.path, scalar.nth): scalar.value for scalar in _scalars(text)}
    except yaml.YAMLError:
        reads = {}
    for scalar, value in restored:
        if reads.get((scalar.path, scalar.nth), MISSING) != value:
            raise SecretLost(scalar.path, "it cannot be written back in the form it was sent in")


def _spliced(text: str, values: list[_Shown], *, shown: bool) -> str:
    """`text` with the secrets written outside their own values masked, and within them too if `shown`."""
    secrets = {secret for value in values for secret in value.secrets}
    out, at = [], 0
    for value in values:
        out += [loose(text[at : value.scalar.start], secrets), value.shown if shown else value.raw]
        at = value.scalar.end
    out.append(loose(text[at:], secrets))
    return "".join(out)


def _masked_scalars(text: str) -> Iterator[_Scalar]:
    """Each value of `text` where a MASK stands for a secret."""
    for scalar in _scalars(text):
        value = scalar.value
        if isinstance(value, str) and MASK in value:
            parts = secret_parts(scalar.path, value)
            if any(value[part.start : part.end] == MASK for part in parts):
                yield scalar


def _secret_values(text: str) -> Iterator[_Shown]:
    for scalar in _scalars(text):
        parts = secret_parts(scalar.path, scalar.value)
        if parts:
            secrets = tuple(str(scalar.value)[part.start : part.end] for part in parts)
            raw = text[scalar.start : scalar.end]
            shown = masked_value(scalar.path, scalar.value)
            yield _Shown(scalar, raw, _shown_raw(raw, scalar.tail, secrets, shown), secrets)


def _shown_raw(raw: str, tail: str, secrets: tuple[str, ...], shown: str) -> str:
    """`raw` with each secret replaced by MASK where written as such (keeping quotes and style), else the
    shown value as a double-quoted string."""
    candidate, at = raw, 0
    for secret in secrets:
        found = candidate.find(secret, at)
        if found < 0:
            return json.dumps(shown, ensure_ascii=False)
        candidate = candidate[:found] + MASK + candidate[found + len(secret) :]
        at = found + len(MASK)
    return candidate if _reads_as(candidate + tail, shown) else json.dumps(shown, ensure_ascii=False)


def _rewritten(text: str, scalar: _Scalar, kept: Any) -> str:
    """The value of `scalar` as sent, with each MASK replaced by the secret `kept` has there, where that
    reads back as `kept` (keeping the quotes); else `kept` as a double-quoted string."""
    sent = [scalar.value[part.start : part.end] for part in secret_parts(scalar.path, scalar.value)]
    secrets = [str(kept)[part.start : part.end] for part in secret_parts(scalar.path, kept)]
    restore = [secret for shown, secret in zip(sent, secrets, strict=False) if shown == MASK]
    pieces = text[scalar.start : scalar.end].split(MASK)
    if len(sent) == len(secrets) and len(pieces) == len(restore) + 1:
        after = zip(restore, pieces[1:], strict=True)
        candidate = pieces[0] + "".join(secret + piece for secret, piece in after)
        if _reads_as(candidate + scalar.tail, kept):
            return candidate
    return json.dumps(kept, ensure_ascii=False)


def _reads_as(text: str, value: Any) -> bool:
    try:
        return bool(yaml.load(text, BoundedLoader) == value)
    except yaml.YAMLError:
        return False


def _scalars(text: str) -> Iterator[_Scalar]:
    """Every scalar of the (already checked) YAML `text`, each at its key path, spanning its value without
    anchor, tag or trailing space; a value an alias repeats only where it is written."""
    loader = BoundedLoader(text)
    try:
        root = loader.get_single_node()
        seen: set[int] = set()
        written: dict[KeyPath, int] = {}
        pending: list[tuple[yaml.Node, KeyPath]] = [(root, ())] if root is not None else []
        while pending:
            node, place = pending.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, yaml.MappingNode):
                pending += [
                    (value, (*place, loader.construct_object(key)))
                    for key, value in reversed(node.value)
                    if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE_TAG
                ]
            elif isinstance(node, yaml.SequenceNode):
                pending += [(item, (*place, index)) for index, item in reversed(list(enumerate(node.value)))]
            else:
                written[place] = written.get(place, -1) + 1
                yield _scalar(text, node, place, written[place], loader.construct_object(node))
    finally:
        loader.dispose()


def _scalar(text: str, node: yaml.Node, place: KeyPath, nth: int, value: Any) -> _Scalar:
    start, end = node.start_mark.index, node.end_mark.index
    properties = _PROPERTIES.match(text, start, end)
    start = properties.end() if properties else start
    kept = start + len(text[start:end].rstrip())
    return _Scalar(place, nth, start, kept, text[kept:end], value)


def _at(data: Any, place: KeyPath) -> Any:
    for key in place:
        in_list = isinstance(data, list) and isinstance(key, int) and key < len(data)
        if not (in_list or (isinstance(data, Mapping) and key in data)):
            return MISSING
        data = data[key]
    return data


def _unmasked_lines(text: str, shown: str, saved: str) -> str:
    """`text` with each line that still holds a MASK put back to the one saved line shown as it is."""
    if MASK not in text:
        return text
    originals: dict[str, set[str]] = {}
    shown_lines, saved_lines = shown.splitlines(keepends=True), saved.splitlines(keepends=True)
    if len(shown_lines) == len(saved_lines):
        for shown_line, line in zip(shown_lines, saved_lines, strict=True):
            if shown_line != line:
                originals.setdefault(shown_line, set()).add(line)
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        if MASK not in line:
            continue
        found = originals.get(line, set())
        if len(found) != 1:
            reason = "saved lines differ that show alike" if found else "no saved line shows as this one"
            raise SecretLost((), reason, line=number)
        lines[number - 1] = next(iter(found))
    return "".join(lines)


def _masked_lines(text: str) -> tuple[str, int]:
    """A text that is not YAML, masked by line (see _BY_LINE), and how many secrets that is."""
    count = 0

    def masked(match: re.Match[str]) -> str:
        nonlocal count
        name, value = match.groupdict().get("name"), match.group("value")
        if value == MASK or not is_secret_value(value) or (name is not None and not is_secret_name(name)):
            return match.group(0)
        count += 1
        return f"{match.group('head')}{MASK}{match.group('tail')}"

    for pattern in _BY_LINE:
        text = pattern.sub(masked, text)
    inner = _masked_within(text)
    return inner[0], count + inner[1]


def _masked_within(text: str) -> tuple[str, int]:
    """`Name: value` pairs inside lines, where Name names a secret."""
    spans = []
    for match in _INNER_NAME.finditer(text):
        value = _INNER_VALUE.match(text, match.end())
        secret = value.group(0).rstrip() if value else ""
        if is_secret_name(match.group(1)) and secret != MASK and is_secret_value(secret):
            spans.append((match.end(), match.end() + len(secret)))
    for start, end in reversed(spans):
        text = text[:start] + MASK + text[end:]
    return text, len(spans)
