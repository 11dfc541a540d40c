"""engine layer: the agent loop, its events, JSONL sessions, compaction, retries and the `Tool` protocol.

The layer's one public face: other layers import from here, never from its modules (the architecture test
holds them to it); the modules themselves import one another directly.
"""

from miniroom.engine.agent import ABORTED_TOOL_TEXT, Agent, AgentConfig, BetweenBatches
from miniroom.engine.call_records import CallRecord, find_call
from miniroom.engine.compaction import NotCompacted
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
    ToolUpdated,
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
    run_hooked,
    with_context,
)
from miniroom.engine.inbox import Hold, TurnInbox
from miniroom.engine.notices import retry_line
from miniroom.engine.retry_policy import RetryPolicy, check_retry_file, load_retry_policy
from miniroom.engine.session import (
    CUSTOM_ENTRY,
    INTERRUPTED_TOOL_TEXT,
    PARENT_CALL_KEY,
    Session,
    SessionError,
    directory_for_cwd,
)
from miniroom.engine.session_index import (
    SessionInfo,
    child_session_paths,
    child_sessions,
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
    ToolSource,
    UntimedTool,
    run_tool_call,
)
from miniroom.engine.usage_report import assistant_messages, tally_usage

__all__ = [
    "ABORTED_TOOL_TEXT",
    "ALLOW",
    "CUSTOM_ENTRY",
    "INTERRUPTED_TOOL_TEXT",
    "NO_HOOKS",
    "PARENT_CALL_KEY",
    "PASS",
    "Agent",
    "AgentConfig",
    "AgentEvent",
    "BetweenBatches",
    "CallRecord",
    "ClosableTool",
    "CommandGrants",
    "CommandLineOffer",
    "CommandTicket",
    "CompactTrigger",
    "Compacted",
    "EventListener",
    "Hold",
    "MessageCompleted",
    "NotCompacted",
    "PromptVerdict",
    "RetryPolicy",
    "RetryScheduled",
    "Session",
    "SessionError",
    "SessionInfo",
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
    "ToolUpdated",
    "ToolVerdict",
    "TurnEnded",
    "TurnHooks",
    "TurnInbox",
    "UntimedTool",
    "UsageReported",
    "assistant_messages",
    "check_retry_file",
    "child_session_paths",
    "child_sessions",
    "directory_for_cwd",
    "find_call",
    "find_session_path",
    "latest_session_path",
    "list_sessions",
    "load_retry_policy",
    "retry_line",
    "run_hooked",
    "run_tool_call",
    "session_id_of",
    "tally_usage",
    "with_context",
]
