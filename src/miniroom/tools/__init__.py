"""tools layer: the built-in tools, one file each, with their output caps, path checks and shells.

The layer's one public face: other layers import from here, never from its modules (the architecture test
holds them to it); each name loads with its module at first use, so a turn that calls no tool imports no
tool's code (an agent gets each tool as a `DeclaredTool`, loaded at its first call).
"""

import typing

from miniroom.config import faces

if typing.TYPE_CHECKING:
    from miniroom.tools.ask_user import ASK_USER_TOOL_NAME, AskUserTool
    from miniroom.tools.base import BuiltinTool, Params
    from miniroom.tools.builtin import (
        BUILTIN_TOOL_NAMES,
        BUILTIN_TOOLS,
        TOOL_REQUIRES,
        builtin_tool_classes,
        builtin_tools,
    )
    from miniroom.tools.declared import SPECS_FILE, DeclaredTool, UntimedDeclaredTool, declared_spec
    from miniroom.tools.environment import (
        GRANT_TOKEN_VARIABLE,
        GRANT_URL_VARIABLE,
        make_non_dumpable,
        tool_environment,
    )
    from miniroom.tools.grant import GRANT, Grant, Ticket
    from miniroom.tools.output import MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, keep_head
    from miniroom.tools.output_folder import OutputFolder
    from miniroom.tools.paths import (
        InsidePath,
        OutsideError,
        inside_path,
        open_inside,
        open_regular_file,
        read_file_inside,
    )
    from miniroom.tools.process import (
        DRAIN_SECONDS,
        GATE_ARGV,
        GATE_LINE,
        MAX_KEPT_BYTES,
        NON_INTERACTIVE_ENV,
        STDIN_GATE_ARGV,
        ChildSpec,
        Finished,
        StartFailure,
        child_environment,
        group_running,
        kill_tree,
        prepare,
        release_if_done,
        shell_argv,
    )
    from miniroom.tools.process import run as run_process
    from miniroom.tools.read import MAX_IMAGE_BYTES, SNIFF_BYTES, image_mime, read_line_cap
    from miniroom.tools.reaper import process_reaper
    from miniroom.tools.sandbox import Sandbox, sandbox_problem
    from miniroom.tools.shell import one_line_summary
    from miniroom.tools.skill_file import SkillFormatError, split_front_matter
    from miniroom.tools.todo_write import latest_todos, render_todos

__all__ = [
    "ASK_USER_TOOL_NAME",
    "BUILTIN_TOOLS",
    "BUILTIN_TOOL_NAMES",
    "DRAIN_SECONDS",
    "GATE_ARGV",
    "GATE_LINE",
    "GRANT",
    "GRANT_TOKEN_VARIABLE",
    "GRANT_URL_VARIABLE",
    "MAX_IMAGE_BYTES",
    "MAX_KEPT_BYTES",
    "MAX_OUTPUT_BYTES",
    "MAX_OUTPUT_LINES",
    "NON_INTERACTIVE_ENV",
    "SNIFF_BYTES",
    "SPECS_FILE",
    "STDIN_GATE_ARGV",
    "TOOL_REQUIRES",
    "AskUserTool",
    "BuiltinTool",
    "ChildSpec",
    "DeclaredTool",
    "Finished",
    "Grant",
    "InsidePath",
    "OutputFolder",
    "OutsideError",
    "Params",
    "Sandbox",
    "SkillFormatError",
    "StartFailure",
    "Ticket",
    "UntimedDeclaredTool",
    "builtin_tool_classes",
    "builtin_tools",
    "child_environment",
    "declared_spec",
    "group_running",
    "image_mime",
    "inside_path",
    "keep_head",
    "kill_tree",
    "latest_todos",
    "make_non_dumpable",
    "one_line_summary",
    "open_inside",
    "open_regular_file",
    "prepare",
    "process_reaper",
    "read_file_inside",
    "read_line_cap",
    "release_if_done",
    "render_todos",
    "run_process",
    "sandbox_problem",
    "shell_argv",
    "split_front_matter",
    "tool_environment",
]

if not typing.TYPE_CHECKING:  # for mypy, the names are the imports above
    __getattr__ = faces.lazy_face(__name__, __file__)
