"""The built-in tools a profile's tool lists may name, and why any other name cannot stand there."""

from __future__ import annotations

from miniroom.settings_errors import did_you_mean

BUILTIN_TOOL_NAMES: tuple[str, ...] = (
    "read", "bash", "parallel_bash", "edit", "write", "grep", "find", "glob", "ls", "load_skill",
    "todo_write",
)  # fmt: skip
_TOOL_LIST = ", ".join(BUILTIN_TOOL_NAMES)
AGENT_TOOL_NAMES = ("agent", "agent_start", "agent_check", "agent_stop")
CATALOGUE_TOOLS = {"fetch": "fetch.yml", "search": "search.yml"}


def tool_name_problem(name: str) -> str | None:
    """Why `name` cannot stand in a profile's tool list, or None when it can."""
    if name in BUILTIN_TOOL_NAMES:
        return None
    if name in AGENT_TOOL_NAMES:
        return f"'{name}' is always given to root chats and no profile can enable or disable it: remove it"
    if name in CATALOGUE_TOOLS:
        return (
            f"'{name}' is not a built-in tool and no profile can enable or disable it: it exists while "
            f".miniroom/{CATALOGUE_TOOLS[name]} has an enabled service; remove it from the list"
        )
    hint = did_you_mean(name, BUILTIN_TOOL_NAMES)
    return f"unknown tool '{name}'{f' ({hint})' if hint else ''}; a profile can list only {_TOOL_LIST}"
