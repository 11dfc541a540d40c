"""The built-in tools a profile can name, which names it cannot, and which tool needs which."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from miniroom.config.problems import did_you_mean
from miniroom.tools import BUILTIN_TOOL_NAMES, TOOL_REQUIRES

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


def allowed_with_requirements(name: str, listed: Callable[[str], bool]) -> bool:
    """Whether a tool list lets `name` in: the tool itself and the tool it requires (parallel_bash: bash)."""
    required = TOOL_REQUIRES.get(name)
    return listed(name) and (required is None or listed(required))


def unmet_requirements(enabled_tools: Sequence[str]) -> list[str]:
    """What an allowlist naming a tool without the tool it requires leaves out, and how to fix it."""
    return [
        f"lists {name} but not {required}: {name} runs {required} commands, so it is off too; add "
        f"{required} to allow both, or remove {name}"
        for name, required in TOOL_REQUIRES.items()
        if name in enabled_tools and required not in enabled_tools
    ]
