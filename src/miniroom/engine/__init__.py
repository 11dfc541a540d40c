"""engine layer: the agent loop, its events, JSONL sessions, compaction, retries and the `Tool` protocol.

The layer's one public face: other layers import from here, never from its modules (the architecture test
holds them to it); the modules themselves import one another directly.
"""

from miniroom.engine.agent import Agent, AgentConfig
from miniroom.engine.call_records import CallRecord, find_call
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
from miniroom.engine.retry_policy import RETRY_FILE, RetryPolicy, check_retry_file, load_retry_policy
from miniroom.engine.session import Session, SessionError, directory_for_cwd
from miniroom.engine.session_file import read_session_lines
from miniroom.engine.session_index import (
    find_session_path,
    latest_session_path,
    list_sessions,
    session_id_of,
)
from miniroom.engine.tool import Tool, ToolContext, ToolError, ToolResult, ToolSettings
from miniroom.engine.usage_report import assistant_messages, tally_usage

__all__ = [
    "RETRY_FILE",
    "Agent",
    "AgentConfig",
    "AgentEvent",
    "CallRecord",
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
    "assistant_messages",
    "check_retry_file",
    "directory_for_cwd",
    "find_call",
    "find_session_path",
    "latest_session_path",
    "list_sessions",
    "load_retry_policy",
    "read_session_lines",
    "retry_line",
    "session_id_of",
    "tally_usage",
]
