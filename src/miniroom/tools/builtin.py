"""The built-in tools, declared once: their toolkits, classes and requirements; an agent gets each as a
`DeclaredTool`, whose file's code loads at the tool's first call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from miniroom.engine import Tool
from miniroom.tools.declared import DeclaredTool, declared_spec, load_class
from miniroom.tools.output_folder import OutputFolder
from miniroom.tools.sandbox import Sandbox

if TYPE_CHECKING:
    from miniroom.tools.base import BuiltinTool
    from miniroom.tools.skill_file import SkillRef


class BuiltinDeclaration(NamedTuple):
    """A built-in tool: its toolkit (`files` in `files.read`), its class, and the tool it is in other clothes
    (parallel_bash runs bash commands): it goes wherever that tool goes, and is off wherever that tool is."""

    toolkit: str
    target: str  # module:Class
    requires: str | None = None

    @property
    def name(self) -> str:
        return declared_spec(self.target).name


# The 11 built-in tools, in the order the model sees them: their names, everywhere, come from here.
BUILTIN_TOOLS: tuple[BuiltinDeclaration, ...] = (
    BuiltinDeclaration("files", "miniroom.tools.read:ReadTool"),
    BuiltinDeclaration("shell", "miniroom.tools.bash:BashTool"),
    BuiltinDeclaration("shell", "miniroom.tools.parallel_bash:ParallelBashTool", "bash"),
    BuiltinDeclaration("files", "miniroom.tools.edit:EditTool"),
    BuiltinDeclaration("files", "miniroom.tools.write:WriteTool"),
    BuiltinDeclaration("files", "miniroom.tools.grep:GrepTool"),
    BuiltinDeclaration("files", "miniroom.tools.find:FindTool"),
    BuiltinDeclaration("files", "miniroom.tools.glob:GlobTool"),
    BuiltinDeclaration("files", "miniroom.tools.ls:LsTool"),
    BuiltinDeclaration("skills", "miniroom.tools.load_skill:LoadSkillTool"),
    BuiltinDeclaration("todo", "miniroom.tools.todo_write:TodoWriteTool"),
)
BUILTIN_TOOL_NAMES: tuple[str, ...] = tuple(tool.name for tool in BUILTIN_TOOLS)
TOOL_REQUIRES: Mapping[str, str] = MappingProxyType(
    {tool.name: tool.requires for tool in BUILTIN_TOOLS if tool.requires is not None}
)
TAKES_OUTPUT_FOLDER = frozenset(
    {"read", "bash", "parallel_bash"}
)  # the shells keep long output; read reads it
# The file tools do not read or change what the shell sandbox hides or keeps read-only.
KEEPS_TO_SANDBOX = frozenset({"edit", "write", "grep", "find", "glob", "ls"})


def builtin_tool_classes() -> tuple[type[BuiltinTool[Any]], ...]:
    """The built-in tool classes, in order (importing every tool's code)."""
    return tuple(load_class(tool.target) for tool in BUILTIN_TOOLS)


def builtin_tools(
    skills: Sequence[SkillRef] = (), output: OutputFolder | None = None, sandbox: Sandbox | None = None
) -> list[Tool]:
    """One of each built-in tool, in the order of BUILTIN_TOOLS; the shells share one output folder, which
    read may read from, and run their commands in `sandbox`, whose rules the file tools keep to."""
    shared = output or OutputFolder()
    made_with: dict[str, tuple[Any, ...]] = dict.fromkeys(KEEPS_TO_SANDBOX, (sandbox,))
    for name in TAKES_OUTPUT_FOLDER:
        made_with[name] = (shared, sandbox)
    made_with["load_skill"] = (skills,)
    return [DeclaredTool(tool.target, *made_with.get(tool.name, ())) for tool in BUILTIN_TOOLS]
