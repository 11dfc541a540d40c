"""The four subagent tools a root chat is given, over its manager; their code loads at their first call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from miniroom.engine import Tool
from miniroom.tools import UntimedDeclaredTool, declared_spec

if TYPE_CHECKING:
    from miniroom.agent.subagents.manager import SubagentManager

SUBAGENT_TOOL_TARGETS = tuple(
    f"miniroom.agent.subagents.tools:{name}"
    for name in ("AgentTool", "AgentStartTool", "AgentCheckTool", "AgentStopTool")
)
AGENT_TOOL_NAMES = tuple(declared_spec(target).name for target in SUBAGENT_TOOL_TARGETS)


def subagent_tools(manager: SubagentManager) -> list[Tool]:
    return [UntimedDeclaredTool(target, manager) for target in SUBAGENT_TOOL_TARGETS]
