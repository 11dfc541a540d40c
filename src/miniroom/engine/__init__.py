"""engine layer: the agent loop, its events, JSONL sessions, compaction, retries and the `Tool` protocol.

The layer's one public face: other layers import from here, never from its modules (the architecture test
holds them to it); the modules themselves import one another directly.
"""

from miniroom.engine.agent import Agent, AgentConfig
from miniroom.engine.events import (
    AgentEvent,
    Compacted,
    EventListener,
    MessageCompleted,
    RetryScheduled,
    TextDelta,
    ThinkingDelta,
    ToolEnded,
    ToolStarted,
    TurnEnded,
    UsageReported,
)
from miniroom.engine.hooks import (
    ALLOW,
    NO_HOOKS,
    PASS,
    CompactTrigger,
    PromptVerdict,
    ToolVerdict,
    TurnHooks,
    with_context,
)
from miniroom.engine.notices import retry_line
from miniroom.engine.retry_policy import RetryPolicy, check_retry_file, load_retry_policy
from miniroom.engine.session import Session, SessionError, directory_for_cwd
from miniroom.engine.session_index import (
    find_session_path,
    latest_session_path,
    list_sessions,
    session_id_of,
)
from miniroom.engine.tool import Tool, ToolContext, ToolError, ToolResult, ToolSettings, ToolSource

__all__ = [
    "ALLOW",
    "NO_HOOKS",
    "PASS",
    "Agent",
    "AgentConfig",
    "AgentEvent",
    "CompactTrigger",
    "Compacted",
    "EventListener",
    "MessageCompleted",
    "PromptVerdict",
    "RetryPolicy",
    "RetryScheduled",
    "Session",
    "SessionError",
    "TextDelta",
    "ThinkingDelta",
    "Tool",
    "ToolContext",
    "ToolEnded",
    "ToolError",
    "ToolResult",
    "ToolSettings",
    "ToolSource",
    "ToolStarted",
    "ToolVerdict",
    "TurnEnded",
    "TurnHooks",
    "UsageReported",
    "check_retry_file",
    "directory_for_cwd",
    "find_session_path",
    "latest_session_path",
    "list_sessions",
    "load_retry_policy",
    "retry_line",
    "session_id_of",
    "with_context",
]
