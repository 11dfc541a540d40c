"""What `serve` logs about its work: each agent's decision on each message, and each turn's start and end.

One line each, as `key=value` pairs, so that a person can grep for an event, an agent or a reason. Judgments
(adaptive participation, mid-turn) log their outcome on `miniroom.rooms.judgments`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from miniroom.llm import Usage
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.decide import Decision, Judge, NeedsRouting, Respond, RoomDecision, SilenceReason, Silent
from miniroom.rooms.judgment import Backend, Outcome, Skip
from miniroom.rooms.mid_turn import MidTurnSkip
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


judgments_log = logging.getLogger("miniroom.rooms.judgments")


def log_judgment(kind: str, agent: str, event_id: str, outcome: Outcome) -> None:
    """One line per judgment asked (`kind`: participation or mid_turn): who decided what, how fast and at
    what cost; never the request's text or a credential."""
    fields = [
        f"kind={kind}",
        f"agent={agent}",
        f"event={event_id}",
        f"backend={outcome.backend.value}",
        f"model={outcome.model}",
        f"decision={outcome.verdict.value if outcome.verdict else 'none'}",
        f"failure={outcome.failure.value if outcome.failure else 'none'}",
        f"latency={outcome.seconds:.3f}s",
        f"tokens_in={outcome.tokens_in}",
        f"tokens_out={outcome.tokens_out}",
        f"input_bytes={outcome.input_bytes}",
    ]
    if outcome.backend is Backend.TYPESAFE:
        probability = "none" if outcome.probability is None else f"{outcome.probability:.3f}"
        fields += [f"probability={probability}", f"threshold={outcome.threshold}"]
    level = logging.INFO if outcome.failure is None else logging.WARNING
    detail = f" ({outcome.detail})" if outcome.detail else ""
    judgments_log.log(level, "Judgment: %s%s", " ".join(fields), detail)


def log_participation_skip(agent: str, event_id: str, skip: Skip) -> None:
    judgments_log.info(
        "Judgment backend skipped: kind=participation agent=%s event=%s reason=%s (the reply model decides)",
        agent,
        event_id,
        skip.value,
    )


def log_judged(agent: str, event_ids: Sequence[str], conversation: Conversation, decision: Decision) -> None:
    """The decision adaptive participation came to, for each message it judged together."""
    kind, reason, level = describe(decision)
    for event_id in event_ids:
        decisions_log.log(
            level,
            "Decision: event=%s room=%s thread=%s agent=%s outcome=%s reason=%s",
            event_id,
            conversation.room_id,
            thread_name(conversation),
            agent,
            kind,
            reason,
        )


def log_mid_turn_skipped(turn: Turn, event_ids: Sequence[str], skip: MidTurnSkip) -> None:
    judgments_log.info(
        "Mid-turn judgment skipped: agent=%s event=%s queued=%s reason=%s (the wrap-up notice is sent)",
        turn.agent,
        turn.event_id,
        ",".join(event_ids),
        skip.value,
    )


def log_wrap_up(turn: Turn, event_ids: Sequence[str]) -> None:
    judgments_log.info(
        "Mid-turn wrap-up notice: agent=%s event=%s queued=%s (no mid_turn judgment is set)",
        turn.agent,
        turn.event_id,
        ",".join(event_ids),
    )


def log_mid_turn_evaluated(turn: Turn, event_ids: Sequence[str], outcome: Outcome, notice: bool) -> None:
    level = logging.INFO if outcome.failure is None else logging.WARNING
    judgments_log.log(
        level,
        "Mid-turn continuation evaluated: agent=%s event=%s queued=%s backend=%s model=%s decision=%s "
        "failure=%s latency=%.3fs outcome=%s",
        turn.agent,
        turn.event_id,
        ",".join(event_ids),
        outcome.backend.value,
        outcome.model,
        outcome.verdict.value if outcome.verdict else "none",
        outcome.failure.value if outcome.failure else "none",
        outcome.seconds,
        "wrap_up" if notice else "continue",
    )
