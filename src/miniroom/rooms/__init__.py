"""Room policy: pure functions over Matrix-shaped events deciding who answers, and where.

No I/O and no Matrix library: the same code runs over a Matrix homeserver and over embedded rooms.
"""

from miniroom.rooms.commands import ThreadModeOverrides, parse_command, run_command
from miniroom.rooms.conversation import Conversation, resolve_conversation
from miniroom.rooms.decide import (
    Decision,
    Judge,
    NeedsRouting,
    Regeneration,
    Respond,
    ResponseReason,
    RoomDecision,
    SilenceReason,
    Silent,
    decide,
    handoff_target,
    regenerate_on_edit,
)
from miniroom.rooms.events import RoomEvent, parse_event
from miniroom.rooms.policy import (
    AgentPolicy,
    RoomPolicy,
    RoomState,
    ThreadState,
    room_policy,
    room_thread_modes,
)
from miniroom.rooms.thread_mode import RoomRef, ThreadMode, agent_thread_mode, group_thread_mode

__all__ = [
    "AgentPolicy",
    "Conversation",
    "Decision",
    "Judge",
    "NeedsRouting",
    "Regeneration",
    "Respond",
    "ResponseReason",
    "RoomDecision",
    "RoomEvent",
    "RoomPolicy",
    "RoomRef",
    "RoomState",
    "SilenceReason",
    "Silent",
    "ThreadMode",
    "ThreadModeOverrides",
    "ThreadState",
    "agent_thread_mode",
    "decide",
    "group_thread_mode",
    "handoff_target",
    "parse_command",
    "parse_event",
    "regenerate_on_edit",
    "resolve_conversation",
    "room_policy",
    "room_thread_modes",
    "run_command",
]
