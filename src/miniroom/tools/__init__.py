"""tools layer: the built-in tools, one file each, with their output caps and path checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from miniroom.engine.tool import Tool
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

# Every built-in tool class, for what is read off the classes (the toolkit table) rather than off instances.
TOOL_CLASSES: tuple[type[BuiltinTool[Any]], ...] = (
    ReadTool,
    BashTool,
    ParallelBashTool,
    EditTool,
    WriteTool,
    GrepTool,
    FindTool,
    GlobTool,
    LsTool,
    LoadSkillTool,
    TodoWriteTool,
)


def builtin_tools(skills: Sequence[SkillRef] = ()) -> list[Tool]:
    """The 11 built-in tools, in the order the model sees them; the shells share one output folder."""
    output = OutputFolder()
    return [
        ReadTool(),
        BashTool(output),
        ParallelBashTool(output),
        EditTool(),
        WriteTool(),
        GrepTool(),
        FindTool(),
        GlobTool(),
        LsTool(),
        LoadSkillTool(skills),
        TodoWriteTool(),
    ]
