"""What the subagent tools tell UIs: a subagent's status in a tool call's details, and its one-line summary.

The `agent` call (and the `agent_start` call of a background task) reports `ToolUpdated` events whose details
hold `{"subagent": {...}}`: `phase` is `start` when the child session exists, `progress` while it works and
`end` once it finished; the final details of an `agent` call's result hold the same object. In-process
listeners also find the child's own engine event under `event` (the rooms mirror the child's reply with it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from miniroom.agent.subagents.store import TaskState
from miniroom.engine import AgentEvent
from miniroom.llm import Usage, usage_from_dict, usage_to_dict

SUBAGENT_KEY = "subagent"
CHILD_EVENT_KEY = "event"
Phase = Literal["queued", "start", "progress", "end"]


@dataclass(frozen=True)
class SubagentStatus:
    """Where one subagent stands; `outcome` is its answer, error or stop note once it ended."""

    description: str
    state: TaskState = "queued"
    phase: Phase = "queued"
    session: str | None = None
    task: int | None = None  # the background task's number; None for an `agent` call
    tool: str | None = None  # the summary of the tool call it runs now
    usage: Usage = field(default_factory=Usage)
    outcome: str | None = None

    def details(self, event: AgentEvent | None = None) -> dict[str, Any]:
        status = {
            "description": self.description,
            "state": self.state,
            "phase": self.phase,
            "session": self.session,
            "task": self.task,
            "tool": self.tool,
            "usage": usage_to_dict(self.usage),
            "outcome": self.outcome,
        }
        return {SUBAGENT_KEY: status, CHILD_EVENT_KEY: event} if event is not None else {SUBAGENT_KEY: status}

    def moved(self, **changes: Any) -> SubagentStatus:
        return replace(self, **changes)

    @classmethod
    def of(cls, details: dict[str, Any] | None) -> SubagentStatus | None:
        """The status in a call's details, or None when they hold none."""
        raw = (details or {}).get(SUBAGENT_KEY)
        if not isinstance(raw, dict) or not isinstance(raw.get("description"), str):
            return None
        return cls(
            raw["description"],
            raw.get("state", "queued"),
            raw.get("phase", "queued"),
            raw.get("session"),
            raw.get("task"),
            raw.get("tool"),
            usage_from_dict(raw.get("usage") or {}),
            raw.get("outcome"),
        )


def short_count(tokens: int) -> str:
    if tokens < 1000:
        return str(tokens)
    return f"{tokens / 1000:.1f}k" if tokens < 100_000 else f"{tokens // 1000}k"


def progress_line(status: SubagentStatus) -> str:
    """One line for people: `review a.py: Read src/a.py · 1.2k tokens`."""
    doing = status.tool if status.state == "running" and status.tool else status.state
    return f"{status.description}: {doing} · {short_count(status.usage.total_tokens)} tokens"
