"""tools layer: the built-in tools, one file each, with their output caps and path checks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from miniroom.engine import Tool
from miniroom.tools.base import BuiltinTool
from miniroom.tools.bash import BashTool
from miniroom.tools.edit import EditTool
from miniroom.tools.find import FindTool
from miniroom.tools.glob import GlobTool
from miniroom.tools.grep import GrepTool
from miniroom.tools.load_skill import LoadSkillTool, SkillRef
from miniroom.tools.ls import LsTool
from miniroom.tools.output_folder import OutputFolder
from miniroom.tools.parallel_bash import ParallelBashTool
from miniroom.tools.read import ReadTool
from miniroom.tools.todo_write import TodoWriteTool
from miniroom.tools.write import WriteTool

# The 11 built-in tools, in the order the model sees them: their names, everywhere, come from here.
BUILTIN_TOOL_CLASSES: tuple[type[BuiltinTool[Any]], ...] = (
    ReadTool, BashTool, ParallelBashTool, EditTool, WriteTool, GrepTool, FindTool, GlobTool, LsTool,
    LoadSkillTool, TodoWriteTool,
)  # fmt: skip
BUILTIN_TOOL_NAMES: tuple[str, ...] = tuple(tool.name for tool in BUILTIN_TOOL_CLASSES)
# A tool that is another tool in other clothes goes wherever that tool goes: parallel_bash runs bash commands.
TOOL_REQUIRES: Mapping[str, str] = MappingProxyType(
    {tool.name: tool.requires for tool in BUILTIN_TOOL_CLASSES if tool.requires is not None}
)


def builtin_tools(skills: Sequence[SkillRef] = ()) -> list[Tool]:
    """One of each built-in tool, in the order of BUILTIN_TOOL_CLASSES; the shells share one output folder."""
    output = OutputFolder()
    made_with: dict[type[BuiltinTool[Any]], Callable[[], BuiltinTool[Any]]] = {
        BashTool: lambda: BashTool(output),
        ParallelBashTool: lambda: ParallelBashTool(output),
        LoadSkillTool: lambda: LoadSkillTool(skills),
    }
    return [made_with.get(tool, tool)() for tool in BUILTIN_TOOL_CLASSES]
