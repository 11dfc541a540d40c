"""Writing new settings into a YAML file's text while keeping what people wrote around them.

The file is read with ruamel.yaml's round-trip loader, the new data is laid over the document node by node,
and the result is written back: comments, key order, quoting and indentation stay as they were wherever the
value stayed the same. Pure: text and data in, text out.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import LiteralScalarString, SingleQuotedScalarString
from ruamel.yaml.util import load_yaml_guess_indent
from yaml import ScalarNode
from yaml.resolver import Resolver

_NESTED_KEY = re.compile(r"^( +)[^\s#-][^:]*:", re.M)  # an indented `key:` line, to see the mapping indent
_DEFAULT_INDENT = 2
_STR_TAG = "tag:yaml.org,2002:str"
# The loaders read YAML 1.1 (PyYAML), where a bare `off`, `yes` or `30` is no text: such text gets quotes.
_LOADERS_RESOLVER = Resolver()


def updated_text(text: str | None, data: Any) -> str:
    """`data` as YAML text, laid over `text` (the file as it is) so that whatever did not change keeps its
    comments and form; a missing, empty or unreadable `text` gives a fresh file."""
    document, yaml = _round_trip(text)
    document = prepared(data) if document is None else merged(document, data)
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()


def load_round_trip(text: str) -> Any:
    """The document of `text` as ruamel.yaml's round-trip loader sees it; None when it is not YAML."""
    return _round_trip(text)[0]


def dump_round_trip(document: Any, like: str) -> str:
    """A document from `load_round_trip` as text again, indented as `like` (its original text) is."""
    out = io.StringIO()
    _yaml_like(like).dump(document, out)
    return out.getvalue()


def _round_trip(text: str | None) -> tuple[Any, YAML]:
    if not text or not text.strip():
        return None, _yaml(_DEFAULT_INDENT, _DEFAULT_INDENT * 2, _DEFAULT_INDENT)
    yaml = _yaml_like(text)
    try:
        document = yaml.load(text)
    except YAMLError:
        return None, _yaml(_DEFAULT_INDENT, _DEFAULT_INDENT * 2, _DEFAULT_INDENT)
    return (document if isinstance(document, CommentedMap | CommentedSeq) else None), yaml


def _yaml_like(text: str) -> YAML:
    """A round-trip YAML whose indentation is the one `text` uses."""
    try:
        _data, sequence, offset = load_yaml_guess_indent(text)
    except YAMLError:
        sequence, offset = None, None
    nested = [len(match.group(1)) for match in _NESTED_KEY.finditer(text)]
    mapping = min(nested) if nested else _DEFAULT_INDENT
    return _yaml(mapping, sequence or mapping * 2, offset if offset is not None else mapping)


def _yaml(mapping: int, sequence: int, offset: int) -> YAML:
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long value onto a second line
    yaml.indent(mapping=mapping, sequence=max(sequence, offset + 2), offset=offset)
    return yaml


def merged(node: Any, value: Any) -> Any:
    """`value` laid over `node`: mappings and lists keep their nodes (and comments) where keys and items
    stay; an unchanged scalar keeps its node (its quoting); anything else takes the new value."""
    if isinstance(value, Mapping) and isinstance(node, CommentedMap):
        return _merged_mapping(node, value)
    if isinstance(value, Sequence) and not isinstance(value, str) and isinstance(node, CommentedSeq):
        return _merged_list(node, value)
    if _same_scalar(node, value):
        return node
    return prepared(value)


def _merged_mapping(node: CommentedMap, value: Mapping[Any, Any]) -> CommentedMap:
    for key in [key for key in node if key not in value]:
        del node[key]
    for position, (key, item) in enumerate(value.items()):
        if key in node:
            node[key] = merged(node[key], item)
        else:
            node.insert(min(position, len(node)), key, prepared(item))
    if list(node) != list(value):  # reordered: follow the new order, each key keeping its comments
        for key in value:
            node.move_to_end(key)
    return node


def _merged_list(node: CommentedSeq, value: Sequence[Any]) -> CommentedSeq:
    for index, item in enumerate(value):
        if index < len(node):
            node[index] = merged(node[index], item)
        else:
            node.append(prepared(item))
    del node[len(value) :]
    return node


def _same_scalar(node: Any, value: Any) -> bool:
    if isinstance(node, CommentedMap | CommentedSeq) or isinstance(value, Mapping | list):
        return False
    # bool is an int in Python, but `true` and `1` are different settings.
    return (type(node) is type(value) and node == value) or (isinstance(node, str) and node == value)


def prepared(value: Any) -> Any:
    """New data as it should be written: multi-line text (a system prompt) as a `|` block, the way a person
    writes it, and text the loaders would read as something else (`off`, `30`) in quotes."""
    if isinstance(value, Mapping):
        return {key: prepared(item) for key, item in value.items()}
    if isinstance(value, list):
        return [prepared(item) for item in value]
    if type(value) is not str:  # not text, or a scalar node with its own style already
        return value
    if "\n" in value:
        return LiteralScalarString(value)
    tag: str = _LOADERS_RESOLVER.resolve(ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    return SingleQuotedScalarString(value) if tag != _STR_TAG else value
