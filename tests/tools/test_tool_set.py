"""The built-in tool set: one list of tool classes, from which every name and requirement is read."""

from __future__ import annotations

from miniroom.tools import BUILTIN_TOOL_CLASSES, BUILTIN_TOOL_NAMES, TOOL_REQUIRES, builtin_tools


def test_the_set_is_one_of_each_class_in_order_named_by_the_classes() -> None:
    tools = builtin_tools()
    assert [type(tool) for tool in tools] == list(BUILTIN_TOOL_CLASSES)
    assert tuple(tool.name for tool in tools) == BUILTIN_TOOL_NAMES


def test_parallel_bash_requires_bash_by_its_class() -> None:
    assert dict(TOOL_REQUIRES) == {"parallel_bash": "bash"}
