"""What `serve` logs about its work: each agent's decision on each message, and each turn's start and end.

One line each, as `key=value` pairs, so that a person can grep for an event, an agent or a reason.
"""

from __future__ import annotations

import logging

from miniroom.llm import Usage
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.decide import Decision, Judge, NeedsRouting, Respond, RoomDecision, SilenceReason, Silent
from miniroom.rooms.runtime.ledger import Turn

decisions_log = logging.getLogger("miniroom.rooms.decisions")
turns_log = logging.getLogger("miniroom.rooms.turns")

# Silences an agent keeps because the message was not for it: common, so they are logged at DEBUG only.
NOT_ADDRESSED = frozenset(
    {
        SilenceReason.NOT_A_MESSAGE,
        SilenceReason.EDIT,
        SilenceReason.NOT_TEXT,
        SilenceReason.COMMAND,
        SilenceReason.OWN_MESSAGE,
        SilenceReason.NOT_IN_ROOM,
        SilenceReason.FROM_AGENT,
        SilenceReason.OTHER_AGENT_MENTIONED,
        SilenceReason.OTHER_AGENT_IN_THREAD,
        SilenceReason.ROUTED_TO_OTHER,
    }
)
NO_REASON = "-"  # for the kinds that carry no reason of their own (a judgment or routing still to come)


def describe(decision: Decision) -> tuple[str, str, int]:
    """The decision's outcome, its reason's enum name, and the level it is logged at."""
    if isinstance(decision, Respond):
        return "respond", decision.reason.name, logging.INFO
    if isinstance(decision, Silent):
        level = logging.DEBUG if decision.reason in NOT_ADDRESSED else logging.INFO
        return "silent", decision.reason.name, level
    if isinstance(decision, Judge):
        return "judge", NO_REASON, logging.INFO
    assert isinstance(decision, NeedsRouting)
    return "needs_routing", NO_REASON, logging.INFO


def log_decisions(decision: RoomDecision) -> None:
    """One line per configured agent: event id, room, thread, agent, outcome and reason."""
    event, where = decision.event, decision.conversation
    for agent, outcome in decision.decisions.items():
        kind, reason, level = describe(outcome)
        decisions_log.log(
            level,
            "Decision: event=%s room=%s thread=%s agent=%s outcome=%s reason=%s",
            event.event_id,
            where.room_id,
            thread_name(where),
            agent,
            kind,
            reason,
        )


def log_turn_started(turn: Turn) -> None:
    where = turn.conversation
    turns_log.info(
        "Turn started: agent=%s event=%s room=%s thread=%s kind=%s",
        turn.agent,
        turn.event_id,
        where.room_id,
        thread_name(where),
        turn_kind(turn),
    )


def log_turn_ended(turn: Turn, outcome: str, seconds: float, usage: Usage) -> None:
    """`outcome` is done, failed or interrupted; `usage` counts every request of the turn, failed ones too."""
    turns_log.info(
        "Turn ended: agent=%s event=%s outcome=%s duration=%.2fs tokens_in=%d tokens_out=%d "
        "cache_read=%d cache_write=%d cost_usd=%.6f",
        turn.agent,
        turn.event_id,
        outcome,
        seconds,
        usage.input,
        usage.output,
        usage.cache_read,
        usage.cache_write,
        usage.cost,
    )


def thread_name(conversation: Conversation) -> str:
    return conversation.thread_root or "none"


def turn_kind(turn: Turn) -> str:
    if turn.edit_of is not None:
        return "regenerate"
    return "handoff" if turn.handoffs else "message"
