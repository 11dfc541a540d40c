"""People in the loop in rooms: a call that needs approval (or a question) shows a card with buttons in the
agent's reply and waits; the person whose message started the turn, or a room admin, answers in the
conversation (the web chat's buttons post the same words a Matrix user types). Waiting cards are kept in
`<data_dir>/tracking/approvals.json`, so a restart finds them and the turn resumes once decided.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from miniroom.engine import Answer, ApprovalRequest, Decision, Question, chosen_option
from miniroom.rooms.approvals import (
    Who,
    answered_line,
    approval_buttons,
    approval_card,
    buttons,
    decision_line,
    question_card,
    read_answer,
    read_decision,
    refused_line,
    stopped_line,
)
from miniroom.rooms.commands import is_room_admin
from miniroom.rooms.content import MESSAGE_EVENT, conversation_relation, message_content
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.events import RoomEvent
from miniroom.rooms.runtime.ledger import Turn, transaction_id
from miniroom.rooms.runtime.replies import ReplyWriter
from miniroom.rooms.runtime.state_store import read_json_object, write_json_atomically
from miniroom.rooms.transport import RoomTransport

log = logging.getLogger(__name__)
APPROVALS_FILE = "approvals.json"


@dataclass
class Waiting:
    """A card waiting for a person: `kind` approval or question, where, for whom, and on what."""

    kind: str
    agent: str
    room_id: str
    thread_root: str | None
    event_id: str  # the message whose turn waits
    requester: str
    call_id: str
    detail: dict[str, Any]  # the request or question, as stored
    reply_id: str | None = None
    future: asyncio.Future[tuple[str, str]] | None = field(default=None, repr=False, compare=False)

    def stored(self) -> dict[str, Any]:
        return {item.name: getattr(self, item.name) for item in fields(self) if item.name != "future"}

    def key(self) -> str:
        return f"{self.event_id} {self.agent} {self.call_id}"


class WaitingStore:
    """The waiting cards on disk, by key: written as each one comes and goes."""

    def __init__(self, tracking_dir: Path) -> None:
        self.path = tracking_dir / APPROVALS_FILE
        data = read_json_object(self.path)
        self.stored: dict[str, Waiting] = {}
        for key, value in data.items():
            try:
                self.stored[key] = Waiting(**value)
            except TypeError:
                log.warning("Ignoring a waiting card in %s that cannot be read: %.200r", self.path, value)

    def put(self, waiting: Waiting) -> None:
        self.stored[waiting.key()] = waiting
        self._write()

    def drop(self, keys: list[str]) -> None:
        if any(self.stored.pop(key, None) is not None for key in keys):
            self._write()

    def _write(self) -> None:
        write_json_atomically(self.path, {key: item.stored() for key, item in self.stored.items()})


class RoomApprovals:
    """Every card waiting in the rooms of one runtime, and the answers that settle them; a card restored
    after a restart may be answered before its turn shows it again."""

    def __init__(self, transport: RoomTransport, tracking_dir: Path) -> None:
        self.transport = transport
        self.store = WaitingStore(tracking_dir)
        self._early: dict[str, tuple[str, str]] = {}  # restored card -> its answer, until its turn asks

    def person(self, turn: Turn, writer: ReplyWriter) -> RoomPerson:
        return RoomPerson(self, turn, writer)

    def earlier(self, turn: Turn) -> list[Waiting]:
        """What the turn was waiting for when miniroom stopped."""
        return [
            item
            for item in self.store.stored.values()
            if item.event_id == turn.event_id and item.agent == turn.agent and item.future is None
        ]

    def forget(self, turn: Turn) -> None:
        """The turn ended: nothing of it waits any more."""
        keys = [item.key() for item in self.store.stored.values() if item.event_id == turn.event_id]
        self.store.drop([key for key in keys if self.store.stored[key].agent == turn.agent])

    async def wait(self, waiting: Waiting) -> tuple[str, str]:
        """The answer (who, what) to a card shown in the reply; it waits on disk too while it waits."""
        early = self._early.pop(waiting.key(), None)
        if early is not None:
            self.store.drop([waiting.key()])
            return early
        waiting.future = asyncio.get_running_loop().create_future()
        self.store.put(waiting)
        try:
            return await waiting.future
        finally:
            if waiting.future.done() and not waiting.future.cancelled():
                self.store.drop([waiting.key()])  # cancelled by a stop: it waits again after the restart

    def _for(self, event: RoomEvent) -> Waiting | None:
        """The oldest card of the conversation `event` was posted in (a thread, a reply to the card, or the
        room level)."""
        relation = event.relation
        for waiting in self.store.stored.values():
            if waiting.room_id != event.room_id or waiting.key() in self._early:
                continue
            in_thread = waiting.thread_root is not None and relation.thread_root == waiting.thread_root
            replying = relation.in_reply_to is not None and relation.in_reply_to == waiting.reply_id
            room_level = waiting.thread_root is None and relation.thread_root is None
            if in_thread or replying or room_level:
                return waiting
        return None

    async def take(self, event: RoomEvent) -> bool:
        """Whether `event` answers a waiting card (settling it, when its sender may); such a message is not
        handed to the agents."""
        waiting = self._for(event)
        body = event.body or ""
        if waiting is None or (waiting.kind == "approval" and read_decision(body) is None):
            return False
        if not await may_decide(self.transport, event.room_id, event.sender, waiting.requester):
            if waiting.kind == "question":
                return False  # someone else talking in the conversation
            log.info(
                "Ignoring %s's answer %s in %s: only %s or a room admin may answer",
                event.sender,
                event.event_id,
                event.room_id,
                waiting.requester or "a room admin",
            )
            await self._refuse(waiting, event)
            return True
        if waiting.future is None:
            self._early[waiting.key()] = (event.sender, body)
        elif not waiting.future.done():
            waiting.future.set_result((event.sender, body))
        return True

    async def _refuse(self, waiting: Waiting, event: RoomEvent) -> None:
        """Tell whoever answered a card they may not decide that their answer did not count: a notice in
        reply to it, in the card's conversation, sent once however often the answer is read."""
        who = await who_decides(self.transport, waiting.room_id, waiting.requester)
        relation = conversation_relation(waiting.thread_root, event.event_id)
        content = message_content(refused_line(who), relates_to=relation)
        content["msgtype"] = "m.notice"
        sender = self.transport.agent_user_id(waiting.agent)
        txn_id = transaction_id(event.event_id, waiting.agent, "refused")
        try:
            await self.transport.send(sender, waiting.room_id, MESSAGE_EVENT, content, txn_id=txn_id)
        except Exception:
            log.exception("Telling %s their answer did not count failed in %s", event.sender, event.room_id)


async def who_decides(transport: RoomTransport, room_id: str, requester: str) -> Who:
    """Who may answer a card of a turn `requester` started, with their display name when the room has one."""
    if not requester:
        return Who(requester)
    return Who(requester, (await transport.member_names(room_id)).get(requester))


async def may_decide(transport: RoomTransport, room_id: str, sender: str, requester: str) -> bool:
    """Whether `sender` decides for a turn `requester` started: that person, or an admin of the room."""
    if sender == requester:
        return True
    return is_room_admin(await transport.power_levels(room_id), sender)


@dataclass
class RoomPerson:
    """The engine's `Person` for one room turn: cards in its reply, answers from the conversation."""

    approvals: RoomApprovals
    turn: Turn
    writer: ReplyWriter
    present = True

    def _waiting(self, kind: str, call_id: str, detail: dict[str, Any]) -> Waiting:
        where: Conversation = self.turn.conversation
        return Waiting(
            kind,
            self.turn.agent,
            where.room_id,
            where.thread_root,
            self.turn.event_id,
            self.turn.requester,
            call_id,
            detail,
            self.writer.reply_id,
        )

    async def _who(self) -> Who:
        return await who_decides(
            self.approvals.transport, self.turn.conversation.room_id, self.turn.requester
        )

    async def approve(self, request: ApprovalRequest) -> Decision:
        reply = self.writer.reply
        who = await self._who()
        card = approval_card(request.summary, request.rule, request.reason, who)
        reply.ask(request.call_id, card, approval_buttons(who), self.turn.requester)
        self.writer.refresh()
        waiting = self._waiting("approval", request.call_id, asdict(request))
        try:
            by, body = await self.approvals.wait(waiting)
        except asyncio.CancelledError:
            reply.settle(request.call_id, stopped_line(request.summary))
            self.writer.refresh()
            raise
        approved, reason = read_decision(body) or (False, "")
        reply.settle(request.call_id, decision_line(request.summary, approved, by, reason))
        self.writer.refresh()
        return Decision(approved, by, reason)

    async def answer(self, question: Question) -> Answer | None:
        reply = self.writer.reply
        who = await self._who()
        form = buttons(list(question.options), who) if question.options else None
        reply.ask(question.call_id, question_card(question.text, who), form, self.turn.requester)
        self.writer.refresh()
        waiting = self._waiting("question", question.call_id, asdict(question))
        answer: Answer | None = None
        try:
            by, body = await self.approvals.wait(waiting)
            answer = Answer(chosen_option(read_answer(body), question.options), by)
        finally:
            reply.settle(question.call_id, answered_line(question.text, answer))
            self.writer.refresh()
        return answer
