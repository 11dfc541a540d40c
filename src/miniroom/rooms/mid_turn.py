"""Mid-turn coalescing: whether a judge may see the messages queued while an agent works, and what it sees.

The agent normally gets the wrap-up notice after its current tool batch; with `mid_turn` set, a judge may
let the task continue when the queued messages can wait. These rules decide when the judge is skipped (the
notice goes out) and build its request within 16 KB.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from miniroom.rooms.events import parse_event
from miniroom.rooms.judge_context import (
    MAX_CONTEXT_MESSAGES,
    MAX_JUDGE_BYTES,
    JudgeRequest,
    Line,
    Pseudonyms,
    message_line,
)
from miniroom.rooms.policy import RoomPolicy
from miniroom.rooms.secrets import has_credential

WRAP_UP_NOTICE = (
    "[miniroom] New messages arrived in this conversation while you were working; they will be answered "
    "after this response. Make no more tool calls: summarise what you have done so far and what is left, "
    "and hand off."
)
EARLIER_MESSAGE_CHARS = 2_000  # an earlier message longer than this is shortened
PUBLISHED_CHARS = 1_000  # the end of the reply published so far, shown with each queued message
EARLIER_TITLE = "Earlier messages"
Raw = Mapping[str, Any]


class MidTurnSkip(enum.Enum):
    """Why the agent gets the wrap-up notice without a judgment."""

    ROOM_THREAD_MODE = "room_thread_mode"
    HISTORY_UNAVAILABLE = "history_unavailable"
    NOT_TYPED_TEXT = "attachment_or_not_text"
    TOO_MANY_QUEUED = "too_many_queued"
    ESSENTIAL_INPUT_TOO_LARGE = "essential_input_too_large"
    CREDENTIALS = "looks_like_credential"


@dataclass(frozen=True, slots=True)
class Queued:
    """A message that arrived mid-turn, and the reply text the agent had published when it did."""

    raw: Raw
    published: str


@dataclass(frozen=True, slots=True)
class MidTurnInput:
    """What the runtime read: the active request's messages, the thread before them (None: unreadable),
    and the queued messages; `room_mode`: the agent replies at room level."""

    active: Sequence[Raw]
    earlier: Sequence[Raw] | None
    queued: Sequence[Queued]
    room_mode: bool = False


def mid_turn_question(agent: str) -> str:
    return (
        f"{agent}, an AI agent, is working on the request above and has not finished. The messages under "
        "'Sent while it works' arrived meanwhile and will be answered after the task. Can the task go on "
        "without interruption? Answer yes for acknowledgements, thanks, 'continue', 'do not interrupt' and "
        "unrelated requests, which can wait. Answer no when a message stops, pauses or corrects the task, "
        "changes a relevant requirement, or asks to switch tasks now, even alongside praise. Answer with one "
        "word: yes, no, or unsure."
    )


def mid_turn_request(
    data: MidTurnInput, agent_user_id: str, policy: RoomPolicy, instructions: str | None
) -> tuple[MidTurnSkip | None, JudgeRequest | None]:
    """The reason to skip the judge, else its request: instructions, earlier messages (shortened, the oldest
    dropped first to fit 16 KB), the active request and up to 8 queued messages with the reply so far."""
    early = _early_skip(data)
    if early is not None:
        return early, None
    names = Pseudonyms(policy)
    agent = names.of(agent_user_id)
    active = tuple(_lines(data.active, names, agent_user_id))
    queued = tuple(_queued_lines(data.queued, names, agent_user_id, agent))
    essential = JudgeRequest(
        mid_turn_question(agent),
        instructions or "",
        (("The request being worked on", active), ("Sent while it works", queued)),
    )
    if essential.size > MAX_JUDGE_BYTES:
        return MidTurnSkip.ESSENTIAL_INPUT_TOO_LARGE, None
    request = _with_earlier(essential, list(_lines(data.earlier or (), names, agent_user_id)))
    if has_credential([request.guidance, *(line.text for line in request.lines())]):
        return MidTurnSkip.CREDENTIALS, None
    return None, request


def _early_skip(data: MidTurnInput) -> MidTurnSkip | None:
    if data.room_mode:
        return MidTurnSkip.ROOM_THREAD_MODE
    if data.earlier is None or not data.active:
        return MidTurnSkip.HISTORY_UNAVAILABLE
    raws = [*data.active, *(queued.raw for queued in data.queued)]
    if not all(_typed_text(raw) for raw in raws):
        return MidTurnSkip.NOT_TYPED_TEXT
    if len(data.queued) > MAX_CONTEXT_MESSAGES:
        return MidTurnSkip.TOO_MANY_QUEUED
    return None


def _typed_text(raw: Raw) -> bool:
    event = parse_event(raw)
    content = raw.get("content")
    has_file = isinstance(content, Mapping) and ("url" in content or "file" in content)
    return event.is_text and not has_file and "mxc://" not in (event.body or "")


def _lines(raws: Sequence[Raw], names: Pseudonyms, agent_user_id: str) -> list[Line]:
    return [line for raw in raws if (line := message_line(raw, names, agent_user_id)) is not None]


def _queued_lines(queued: Sequence[Queued], names: Pseudonyms, agent_user_id: str, agent: str) -> list[Line]:
    """Each queued message after the reply text published when it arrived (shown once while unchanged)."""
    lines: list[Line] = []
    shown = None
    for item in queued:
        published = item.published.strip()[-PUBLISHED_CHARS:]
        if published != shown:
            lines.append(Line("assistant", agent, f"[its reply so far] {published or '(nothing yet)'}"))
            shown = published
        lines += _lines([item.raw], names, agent_user_id)
    return lines


def _with_earlier(essential: JudgeRequest, earlier: list[Line]) -> JudgeRequest:
    """Add the newest earlier messages that fit, each shortened; the oldest drop out first.

    Each line is charged what it adds to both renderings, so the sum never underestimates `size`."""
    budget = MAX_JUDGE_BYTES - essential.size - len(EARLIER_TITLE) - 16
    kept: list[Line] = []
    for line in reversed(earlier):
        short = line if len(line.text) <= EARLIER_MESSAGE_CHARS else _shortened(line)
        cost = (
            len(short.render().encode()) + len(json.dumps(short.as_dict(), ensure_ascii=False).encode()) + 4
        )
        if cost > budget:
            break
        budget -= cost
        kept.append(short)
    kept.reverse()
    if not kept:
        return essential
    return JudgeRequest(
        essential.question, essential.guidance, ((EARLIER_TITLE, tuple(kept)), *essential.sections)
    )


def _shortened(line: Line) -> Line:
    text = line.text[:EARLIER_MESSAGE_CHARS] + " … (shortened)"
    return Line(line.role, line.author, text, line.media, line.attachment)
