"""The built-in tool set: one table of declarations, from which every name and requirement is read; each
declared tool is its class's tool once used, and specs.json holds what the classes say."""

from __future__ import annotations

import importlib.util
import re

import pytest

from miniroom.engine import ToolError
from miniroom.testing.tool_specs import spec_file_text, tool_specs
from miniroom.tools import BUILTIN_TOOL_NAMES, TOOL_REQUIRES, builtin_tool_classes, builtin_tools
from miniroom.tools.declared import REGENERATE, SPECS_FILE, DeclaredTool, declared_spec
from miniroom.tools.read import ReadTool


def test_the_set_is_one_of_each_declared_class_in_order() -> None:
    tools = builtin_tools()
    assert all(isinstance(tool, DeclaredTool) for tool in tools)
    built = [type(tool.built) for tool in tools if isinstance(tool, DeclaredTool)]
    assert built == list(builtin_tool_classes())
    assert tuple(tool.name for tool in tools) == BUILTIN_TOOL_NAMES
    assert BUILTIN_TOOL_NAMES[:3] == ("read", "bash", "parallel_bash")


def test_parallel_bash_requires_bash() -> None:
    assert dict(TOOL_REQUIRES) == {"parallel_bash": "bash"}


def test_the_spec_file_says_what_the_tool_classes_say() -> None:
    # After changing a tool's name, description or parameters: python -m miniroom.testing.tool_specs
    assert SPECS_FILE.read_bytes() == spec_file_text()
    for target, spec in tool_specs().items():
        assert declared_spec(target).description == spec["description"]


def test_the_regeneration_hint_names_a_module_that_exists() -> None:
    command = re.search(r"python -m ([\w.]+)", REGENERATE)
    assert command is not None
    assert importlib.util.find_spec(command.group(1)) is not None


def test_a_declared_tool_is_its_class_tool_once_used() -> None:
    (read,) = [tool for tool in builtin_tools() if tool.name == "read"]
    assert isinstance(read, DeclaredTool)
    built = read.built
    assert isinstance(built, ReadTool)
    assert read.spec == built.spec
    with pytest.raises(ToolError, match="Invalid arguments for read: path: Field required"):
        read.validate({})


def test_a_class_missing_from_the_spec_file_is_named_with_the_fix() -> None:
    with pytest.raises(LookupError, match=r"no spec of miniroom.tools.read:Nothing: run `python -m"):
        DeclaredTool("miniroom.tools.read:Nothing")
