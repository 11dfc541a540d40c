"""The turn ledger: every message an agent takes on is answered exactly once, across restarts and crashes.

An event is *pending* from its arrival until every turn it started has ended. A turn is *in flight* from
its start (recording the session entry it started after, and its reply once posted) until its reply is
complete; only then is it *answered*. After a restart, turns in flight run again, editing their reply in
place, and pending events are handled again; anything answered is skipped.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.state_store import (
    AnsweredStore,
    PendingStore,
    read_json_object,
    write_json_atomically,
)
from miniroom.rooms.transport import Event

log = logging.getLogger(__name__)
IN_FLIGHT_FILE = "in_flight.json"


@dataclass(frozen=True, slots=True)
class Turn:
    """One message for one agent: what it is told, where it answers, and the event that asked."""

    agent: str
    conversation: Conversation  # where the reply goes, and which session the agent works in
    event_id: str  # the message answered: the key in the ledger
    prompt: str
    edit_of: str | None = None  # regenerating: the earlier reply to edit in place
    handoffs: int = 0  # how many hand-offs led here, to stop agents passing a message back and forth forever
    merged: tuple[str, ...] = ()  # earlier messages answered by this turn too (coalesced), oldest first

    @property
    def event_ids(self) -> tuple[str, ...]:
        """Every message this turn answers, oldest first."""
        return (*self.merged, self.event_id)

    requester: str = ""  # who asked: the message's sender (a grant for the turn's shells acts for them)
    images: tuple[str, ...] = ()  # images people sent, saved in the agent's working folder (relative paths)


@dataclass(frozen=True, slots=True)
class InFlight:
    """A turn that started and has not completed: where its session stood, and its reply once posted."""

    turn: Turn
    session_leaf: str | None  # the session's last entry before the turn's prompt was stored
    reply_id: str | None = None


def transaction_id(event_id: str, agent: str, part: str) -> str:
    """The same id for the same (event, agent, part), so that a send repeated after a crash stores nothing."""
    digest = hashlib.sha256("\0".join((event_id, agent, part)).encode()).hexdigest()
    return f"miniroom.{digest[:40]}"


class TurnLedger:
    """Pending events, turns in flight and answered turns, kept under `<data_dir>/tracking/`."""

    def __init__(self, tracking_dir: Path) -> None:
        self._answered = AnsweredStore(tracking_dir)
        self._pending = PendingStore(tracking_dir)
        self._in_flight_path = tracking_dir / IN_FLIGHT_FILE
        self._in_flight = _read_in_flight(self._in_flight_path)
        self._queued: Counter[str] = Counter()  # event id -> its turns queued or running in this process
        self._claims: set[tuple[str, str]] = set()  # (event id, agent) of those turns

    # Events

    def receive(self, event_id: str, raw: Event) -> None:
        """An event arrived: it stays pending until `release`, to be handled again after a restart."""
        self._pending.add(event_id, raw)

    def release(self, event_id: str) -> None:
        """The event was handled: it is no longer pending, unless turns of it are still to run."""
        if not self._queued[event_id]:
            self._queued.pop(event_id, None)
            self._pending.done(event_id)

    def hold(self, event_id: str) -> None:
        """Keep the event pending while something of it is still to come (a judgment being awaited)."""
        self._queued[event_id] += 1

    def let_go(self, event_id: str) -> None:
        """What `hold` waited for is done: the event is released unless turns of it are still to run."""
        self._queued[event_id] -= 1
        self.release(event_id)

    def pending_events(self) -> list[Event]:
        return self._pending.events()

    # Turns

    def claim(self, turn: Turn) -> bool:
        """Count the turn as queued in this process; False when it is queued or running already."""
        keys = [(event_id, turn.agent) for event_id in turn.event_ids]
        if any(key in self._claims for key in keys):
            return False
        for key in keys:
            self._claims.add(key)
            self._queued[key[0]] += 1
        return True

    def unclaim(self, turn: Turn) -> None:
        """The turn is over in this process (done, or failed for good); its events may be released."""
        for event_id in turn.event_ids:
            key = (event_id, turn.agent)
            if key in self._claims:
                self._claims.discard(key)
                self._queued[event_id] -= 1
            self.release(event_id)

    def begin(self, turn: Turn, session_leaf: str | None) -> InFlight:
        """Record the turn as started; a turn already in flight keeps its record (it is being run again)."""
        earlier = self.in_flight(turn.event_id, turn.agent)
        if earlier is not None:
            return earlier
        record = InFlight(turn, session_leaf)
        self._store(record)
        return record

    def posted(self, turn: Turn, reply_id: str) -> None:
        """The turn's reply is posted: a run after a restart edits it instead of posting another."""
        record = self.in_flight(turn.event_id, turn.agent)
        if record is not None and record.reply_id != reply_id:
            self._store(replace(record, reply_id=reply_id))

    def complete(self, turn: Turn, reply_id: str | None) -> None:
        """The turn ended and its reply (if any) is whole: answered, never run again."""
        if reply_id is not None:
            for event_id in turn.event_ids:
                self._answered.record(event_id, turn.agent, reply_id)
        by_agent = self._in_flight.get(turn.event_id, {})
        if by_agent.pop(turn.agent, None) is not None:
            if not by_agent:
                del self._in_flight[turn.event_id]
            self._save()

    def record_reply(self, event_id: str, agent: str, reply_id: str) -> None:
        """A reply sent in one step (a command's answer) is answered at once."""
        self._answered.record(event_id, agent, reply_id)

    def in_flight(self, event_id: str, agent: str) -> InFlight | None:
        return self._in_flight.get(event_id, {}).get(agent)

    def unfinished(self) -> list[InFlight]:
        """Every turn in flight, in the order they started."""
        return [record for by_agent in self._in_flight.values() for record in by_agent.values()]

    def answered(self, event_id: str, agent: str | None = None) -> bool:
        """Whether `agent` (or, with None, anyone) answered `event_id` completely."""
        return self._answered.answered(event_id, agent)

    def taken(self, event_id: str, agent: str) -> bool:
        """Whether `agent` answered `event_id` or is answering it (so no other agent is routed to it)."""
        return self.answered(event_id, agent) or self.in_flight(event_id, agent) is not None

    def replies(self, event_id: str) -> dict[str, str]:
        """Agent name -> the reply event it sent to `event_id` (the lookup `regenerate_on_edit` takes)."""
        return self._answered.replies(event_id)

    def _store(self, record: InFlight) -> None:
        self._in_flight.setdefault(record.turn.event_id, {})[record.turn.agent] = record
        self._save()

    def _save(self) -> None:
        write_json_atomically(
            self._in_flight_path,
            {
                event_id: {agent: asdict(record) for agent, record in by_agent.items()}
                for event_id, by_agent in self._in_flight.items()
            },
        )


def _read_in_flight(path: Path) -> dict[str, dict[str, InFlight]]:
    records: dict[str, dict[str, InFlight]] = {}
    for event_id, by_agent in read_json_object(path).items():
        for agent, raw in (by_agent or {}).items() if isinstance(by_agent, dict) else ():
            record = _in_flight_record(raw)
            if record is None or (record.turn.event_id, record.turn.agent) != (event_id, agent):
                log.error(
                    "%s: the record of %s for %s is malformed and is left out: %.200r",
                    path,
                    agent,
                    event_id,
                    raw,
                )
                continue
            records.setdefault(event_id, {})[agent] = record
    return records


def _in_flight_record(raw: Any) -> InFlight | None:
    try:
        turn = dict(raw["turn"])
        conversation = Conversation(**turn.pop("conversation"))
        turn["merged"] = tuple(turn.get("merged") or ())
        turn["images"] = tuple(turn.get("images") or ())
        record = InFlight(Turn(conversation=conversation, **turn), raw["session_leaf"], raw["reply_id"])
    except (KeyError, TypeError, ValueError):
        return None
    turn_texts = (record.turn.agent, *record.turn.event_ids, record.turn.prompt, *record.turn.images)
    texts = (*turn_texts, conversation.room_id)
    return record if all(isinstance(text, str) for text in texts) else None
