"""PyYAML's safe loader with bounds, so that no settings file can exhaust the stack, memory or time.

libyaml (when PyYAML has it) parses ten times faster and itself refuses nesting past 1,000 levels. Before
anything walks the composed nodes, aliases are checked here (billion laughs, values that contain
themselves); the walk that follows stops at MAX_NESTING; numbers too long to convert are refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml
from yaml.constructor import ConstructorError

MAX_NESTING = 64
MAX_ALIAS_VALUES = 10_000  # values that aliases (`*name`) may add to a file, counted as expanded
MAX_NUMBER_LENGTH = 100  # characters: more than any setting takes, and cheap to convert
_NUMBER_TAGS = frozenset({"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"})
# What PyYAML's constructors raise for a value they cannot convert (`!!int x`, a 13th month, `!!bool maybe`).
_CONVERSION_ERRORS = (ValueError, TypeError, KeyError, AttributeError, OverflowError, IndexError)
_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
OFFSETS_IN_BYTES = _Base is not yaml.SafeLoader  # libyaml reports a bad character's place in UTF-8 bytes


class ShapeError(yaml.MarkedYAMLError):
    """Valid YAML, but shaped far beyond any settings file: too deep, too many alias values, or cyclic."""


class BoundedLoader(_Base):  # type: ignore[valid-type,misc]
    """A safe loader whose every failure is a marked YAML error (with a line), never a crash."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if _too_long_number(node):
            message = (
                f"a number {len(node.value):,} characters long is far beyond any setting; check the value, "
                "or put it in quotes if it is text"
            )
            raise ConstructorError(None, None, message, node.start_mark)
        try:
            return super().construct_object(node, deep)
        except _CONVERSION_ERRORS as error:
            message = f"cannot read this value ({error}); check it, or put it in quotes to make it text"
            raise ConstructorError(None, None, message, node.start_mark) from None


def _too_long_number(node: yaml.Node) -> bool:
    # int() of thousands of digits is refused (or slow), and `1:2:3...` (base 60) multiplies without end.
    return (
        isinstance(node, yaml.ScalarNode) and node.tag in _NUMBER_TAGS and len(node.value) > MAX_NUMBER_LENGTH
    )


def check_aliases(root: yaml.Node) -> None:
    """Raise a ShapeError (with the line) for a value that contains itself, or aliases that expand too far.

    One pass over the node graph in document order, without recursion: each node is measured once, so an
    alias costs nothing to count however far it expands (billion laughs).
    """
    sizes: dict[int, int] = {}  # node -> the values it stands for, aliases expanded
    alias_values = 0
    path: list[tuple[yaml.Node, Iterator[yaml.Node]]] = [(root, iter(_children(root)))]
    on_path = {id(root)}
    while path:
        node, pending = path[-1]
        child = next(pending, None)
        if child is None:
            path.pop()
            on_path.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(each)] for each in _children(node))
        elif id(child) in on_path:
            raise shape_error(child, "this value contains itself through an alias (*name inside &name)")
        elif id(child) in sizes:  # measured before, so this is an alias (*name) of it
            alias_values += sizes[id(child)]
            if alias_values > MAX_ALIAS_VALUES:
                raise shape_error(node, f"aliases (*name) expand to more than {MAX_ALIAS_VALUES:,} values")
        else:
            path.append((child, iter(_children(child))))
            on_path.add(id(child))


def too_deep(node: yaml.Node) -> ShapeError:
    return shape_error(node, f"values are nested more than {MAX_NESTING} levels deep")


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def shape_error(node: yaml.Node, problem: str) -> ShapeError:
    return ShapeError(None, None, f"{problem}; a settings file needs nothing like it", node.start_mark)
