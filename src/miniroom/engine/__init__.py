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
from miniroom.engine.notices import retry_line
from miniroom.engine.retry_policy import RetryPolicy, check_retry_file, load_retry_policy
from miniroom.engine.session import Session, SessionError, directory_for_cwd
from miniroom.engine.session_index import (
    find_session_path,
    latest_session_path,
    list_sessions,
    session_id_of,
)
from miniroom.engine.tool import (
    ClosableTool,
    CommandGrants,
    CommandLineOffer,
    CommandTicket,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    ToolSettings,
    run_tool_call,
)

__all__ = [
    "Agent",
    "AgentConfig",
    "AgentEvent",
    "ClosableTool",
    "CommandGrants",
    "CommandLineOffer",
    "CommandTicket",
    "Compacted",
    "EventListener",
    "MessageCompleted",
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
    "ToolStarted",
    "TurnEnded",
    "UsageReported",
    "check_retry_file",
    "directory_for_cwd",
    "find_session_path",
    "latest_session_path",
    "list_sessions",
    "load_retry_policy",
    "retry_line",
    "run_tool_call",
    "session_id_of",
]
