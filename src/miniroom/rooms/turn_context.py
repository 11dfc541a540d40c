"""What an agent is told at its turn: what was said in its conversation since the last message it answered.

The agent's session already holds every message it answered and its own replies; a turn adds the rest —
people's and other agents' messages, each with who said it — up to the message that asked, bounded to the
newest `MAX_MESSAGES` or `MAX_BYTES` with a line saying how many earlier ones were left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from miniroom.rooms.events import parse_event
from miniroom.rooms.judge_context import message_line

MAX_MESSAGES = 50
MAX_BYTES = 24 * 1024
SEPARATOR = "\n\n"
EARLIER_UNREAD = "(earlier messages left out)"
Raw = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class KnownNames:
    """Authors by their names in the room (display names, resolved by the caller); text shown as written."""

    names: Mapping[str, str]

    def of(self, user_id: str) -> str:
        return self.names.get(user_id) or user_id.removeprefix("@").partition(":")[0] or user_id

    def scrub(self, text: str) -> str:
        return text


def unheard(
    events: Sequence[Raw], agent_user_id: str, trigger: Raw, answered: Callable[[str], bool]
) -> list[Raw]:
    """The messages of `events` (a conversation, oldest first) the agent's session lacks, up to `trigger`.

    They follow the newest message the agent answered (`answered`, or the one its reply points at; else its
    newest own message); its own messages and answered ones are left out. `trigger` ends the list, where
    it is in `events` or appended when it is not (a plain reply that joined the thread)."""
    trigger_id = trigger.get("event_id")
    ids = [event.get("event_id") for event in events]
    before = list(events[: ids.index(trigger_id)]) if trigger_id in ids else list(events)
    known = {target for event in before if (target := _reply_target(event, agent_user_id))}
    start = _after_last(before, lambda event: event.get("event_id") in known or answered(_id(event)))
    if start == 0:
        start = _after_last(before, lambda event: event.get("sender") == agent_user_id)
    said = [
        event
        for event in before[start:]
        if parse_event(event).is_message and event.get("sender") != agent_user_id and not answered(_id(event))
    ]
    return [*said, trigger]


def turn_context(
    events: Sequence[Raw],
    agent_user_id: str,
    trigger: Raw,
    *,
    names: Mapping[str, str],
    answered: Callable[[str], bool] = lambda event_id: False,
    earlier_unread: bool = False,
    notes: Mapping[str, str] | None = None,
) -> str:
    """The turn's prompt: `name: text` per unheard message (see `unheard`), oldest first, the oldest dropped
    past `MAX_MESSAGES` or `MAX_BYTES` (never `trigger`), led by a line counting what was left out.

    `earlier_unread`: `events` are only the newest of a longer history, so the count is a lower bound when
    nothing the agent answered is among them. `notes` (by event id) replace what a file's line says of it,
    e.g. where it was saved."""
    known = KnownNames(names)
    notes = notes or {}
    lines = [
        f"{line.author}: {note}" if (note := notes.get(_id(raw))) else line.render()
        for raw in unheard(events, agent_user_id, trigger, answered)
        if (line := message_line(raw, known, agent_user_id)) is not None
    ]
    kept = _newest(lines)
    left_out = len(lines) - len(kept)
    if earlier_unread and not _has_answer(events, agent_user_id, answered):
        kept.insert(0, f"(more than {left_out} earlier messages left out)" if left_out else EARLIER_UNREAD)
    elif left_out:
        kept.insert(0, f"({left_out} earlier message{'s' if left_out > 1 else ''} left out)")
    return SEPARATOR.join(kept)


def _newest(lines: Sequence[str]) -> list[str]:
    """The newest lines within the bounds, in order; the last line (the message that asked) always."""
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        size += len(line.encode()) + len(SEPARATOR)
        if kept and (len(kept) >= MAX_MESSAGES or size > MAX_BYTES):
            break
        kept.append(line)
    kept.reverse()
    return kept


def _has_answer(events: Sequence[Raw], agent_user_id: str, answered: Callable[[str], bool]) -> bool:
    return any(event.get("sender") == agent_user_id or answered(_id(event)) for event in events)


def _after_last(events: Sequence[Raw], found: Callable[[Raw], bool]) -> int:
    """The index after the last event `found` accepts, or 0."""
    for index in range(len(events) - 1, -1, -1):
        if found(events[index]):
            return index + 1
    return 0


def _reply_target(event: Raw, agent_user_id: str) -> str | None:
    """The message an agent's reply answers: its `m.in_reply_to`, kept beside a thread relation as the
    fallback (a room-level reply carries none)."""
    if event.get("sender") != agent_user_id:
        return None
    content = event.get("content")
    relates_to = content.get("m.relates_to") if isinstance(content, Mapping) else None
    reply = relates_to.get("m.in_reply_to") if isinstance(relates_to, Mapping) else None
    target = reply.get("event_id") if isinstance(reply, Mapping) else None
    return target if isinstance(target, str) else None


def _id(event: Raw) -> str:
    event_id = event.get("event_id")
    return event_id if isinstance(event_id, str) else ""
