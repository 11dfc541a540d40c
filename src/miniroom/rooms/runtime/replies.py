"""One agent reply in a room: posted once, then edited in place as the turn streams, at a bounded rate."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from miniroom.engine import (
    AgentEvent,
    MessageCompleted,
    RetryScheduled,
    TextDelta,
    ToolEnded,
    ToolStarted,
    UsageReported,
    retry_line,
)
from miniroom.llm import Usage, usage_from_dict, usage_to_dict
from miniroom.rooms.content import (
    MESSAGE_EVENT,
    TURN_KEY,
    TurnState,
    conversation_relation,
    edit_content,
    message_content,
    turn_info,
)
from miniroom.rooms.forms import degrade_forms
from miniroom.rooms.judge_context import shown_content
from miniroom.rooms.transport import Content, RoomTransport

log = logging.getLogger(__name__)
DEFAULT_EDIT_INTERVAL = 0.7  # seconds between two edits of a streaming reply
TOOL_MARK = "🔧"
EMPTY_REPLY = "(no reply)"
# Matrix refuses events over 64 KiB, and an edit carries the body twice: longer replies are cut.
MAX_REPLY_BYTES = 30_000
CUT_NOTICE = "\n\n… (cut: the reply is too long for one message)"
# The tool calls a reply's turn info lists, each summary cut to a line: the rest is in the session.
MAX_LISTED_TOOLS = 100
MAX_SUMMARY_CHARS = 160
# A background task's outcome on its start call's card: the beginning; the whole is in the task's thread.
MAX_OUTCOME_CHARS = 400
EARLIER_USAGE = "earlier_usage"  # in a reply's turn info: the spend of the answers it replaced
# A room-level reply edited in place is looked for among the room's newest messages; a thread's, in all of it.
EARLIER_REPLY_WINDOW = 200


@dataclass(frozen=True, slots=True)
class ReplyTarget:
    """Where a reply goes: the room and thread (None: room level), or the earlier reply to edit in place."""

    room_id: str
    sender: str  # the agent's user id
    thread_root: str | None
    in_reply_to: str | None
    edit_of: str | None = None
    txn_id: str | None = None  # the first post's transaction id: sent again, it returns the same event


class ReplyText:
    """The reply as people see it: a line per retry and per tool call, in order, then the agent's text."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._tool_lines: dict[str, int] = {}  # call id -> its line
        self.retries: list[dict[str, Any]] = []
        self.tools: dict[str, dict[str, Any]] = {}  # call id -> id, name, summary, status
        self.usage: Usage | None = None  # the turn's spend so far, failed attempts included
        self.earlier: Usage | None = None  # what the answers this reply replaced spent (regenerated in place)
        self.paragraphs: list[str] = []  # one per finished assistant message with text
        self._current: list[str] = []  # the streaming message's deltas, joined only when read
        self.state: TurnState = "streaming"
        self.error: str | None = None  # why the turn failed or stopped
        self.ending: str | None = None  # the notice that closes a failed or interrupted reply
        self.footer: str | None = None  # a live last line (a subagent's spend)
        self._asks: dict[str, tuple[int, dict[str, Any] | None]] = {}  # waiting call -> card line, buttons
        self._notify: dict[str, str] = {}  # waiting call -> the user its card is for

    def apply(self, event: AgentEvent) -> bool:
        """Take in one engine event; True when the visible text changed."""
        if isinstance(event, TextDelta):
            self._current.append(event.text)
            return bool(event.text)
        if isinstance(event, ToolStarted):
            self._tool_lines[event.call_id] = len(self.lines)
            self.lines.append(f"{TOOL_MARK} {event.summary}")
            if len(self.tools) < MAX_LISTED_TOOLS:
                self.tools[event.call_id] = _listed_tool(event)
            return True
        if isinstance(event, ToolEnded):
            listed = self.tools.get(event.call_id)
            if listed is not None:
                listed["status"] = "error" if event.result.is_error else "done"
            return listed is not None
        if isinstance(event, UsageReported):
            self.usage = event.turn
            return True
        if isinstance(event, RetryScheduled):
            self.lines.append(retry_line(event))
            self.retries.append(_retry_record(event, self.lines[-1]))
            return True
        if isinstance(event, MessageCompleted):
            finished = "".join(self._current).strip()
            self._current = []
            if event.message.stop_reason == "error":
                return bool(finished)  # a failed attempt's words are not the answer: a retry streams anew
            if finished:
                self.paragraphs.append(finished)  # the next assistant message starts a new paragraph
        return False

    def annotate_tool(self, call_id: str, summary: str, note: str) -> bool:
        """Show `note` after a tool call's line (a link to its subagent's thread); False for unknown calls."""
        index = self._tool_lines.get(call_id)
        if index is None:
            return False
        self.lines[index] = f"{TOOL_MARK} {summary} {note}"
        return True

    def ask(self, key: str, card: str, form: dict[str, Any] | None, notify: str = "") -> None:
        """Show a card, with buttons if any (a call waiting for approval, a question) until `settle`
        replaces it; `notify`: the user it mentions, so their client tells them."""
        self._asks[key] = (len(self.lines), form)
        self._notify[key] = notify
        self.lines.append(card if form is None else f"{card}\n{form['text']}")
        self._mark(key, "running", "waiting")

    def settle(self, key: str, line: str) -> None:
        """The card of `key` answered: `line` says how, and its buttons go."""
        self._notify.pop(key, None)
        asked = self._asks.pop(key, None)
        if asked is not None:
            self.lines[asked[0]] = line
        self._mark(key, "waiting", "running")

    def _mark(self, call_id: str, was: str, status: str) -> None:
        listed = self.tools.get(call_id)
        if listed is not None and listed["status"] == was:
            listed["status"] = status

    @property
    def notified(self) -> tuple[str, ...]:
        """The users the waiting cards are for."""
        return tuple(dict.fromkeys(user for user in self._notify.values() if user))

    def task_ended(self, call_id: str, state: str, outcome: str | None) -> bool:
        """The background task call `call_id` started ended: its listing says how and begins the outcome
        (answer, error or stop note); False for calls not listed."""
        listed = self.tools.get(call_id)
        if listed is None:
            return False
        text = outcome or ""
        cut = text[:MAX_OUTCOME_CHARS] + "…" if len(text) > MAX_OUTCOME_CHARS else text
        listed["task"] = {"state": state, "outcome": cut}
        return True

    def end(self, state: TurnState, error: str | None = None, ending: str | None = None) -> None:
        self.state, self.error, self.ending = state, error, ending

    @property
    def text(self) -> str:
        """The agent's own words (what a hand-off is read from)."""
        streaming = "".join(self._current).strip()
        return "\n\n".join([*self.paragraphs, streaming] if streaming else self.paragraphs)

    def render(self) -> str:
        """The body: retry and tool lines, the text with its forms and buttons as numbered options, and the
        live footer (a subagent's spend)."""
        parts = ["\n".join(self.lines), degrade_forms(self.text)[0], self.footer or ""]
        body = fit("\n\n".join(part for part in parts if part), MAX_REPLY_BYTES)
        return f"{body}\n\n{self.ending}" if body and self.ending else body or self.ending or ""

    def turn(self) -> Content:
        usage = None if self.usage is None else turn_usage(self.usage)
        asked = [form for _, form in sorted(self._asks.values(), key=lambda item: item[0]) if form]
        tools, forms = list(self.tools.values()), asked + degrade_forms(self.text)[1]
        info = turn_info(self.state, self.retries, self.error, tools=tools, usage=usage, forms=forms)
        if self.earlier is not None:
            info[EARLIER_USAGE] = turn_usage(self.earlier)
        return info


def turn_usage(usage: Usage) -> dict[str, Any]:
    """The spend as sessions store it, but the cost as decimal text: Matrix events hold no fractions."""
    return {**usage_to_dict(usage), "cost": {"total": f"{usage.cost:.6f}"}}


def spent(content: Mapping[str, Any]) -> Usage | None:
    """What a reply's content says its answers spent, the ones it replaced included; None if nothing."""
    info = content.get(TURN_KEY)
    if not isinstance(info, Mapping):
        return None
    parts = [info.get(key) for key in ("usage", EARLIER_USAGE)]
    usages = [usage_from_dict(dict(part)) for part in parts if isinstance(part, Mapping)]
    if not usages:
        return None
    return Usage(
        input=sum(usage.input for usage in usages),
        output=sum(usage.output for usage in usages),
        cache_read=sum(usage.cache_read for usage in usages),
        cache_write=sum(usage.cache_write for usage in usages),
        cost=sum(usage.cost for usage in usages),
    )


def _listed_tool(event: ToolStarted) -> dict[str, Any]:
    summary = event.summary[:MAX_SUMMARY_CHARS]
    return {"id": event.call_id, "name": event.name, "summary": summary, "status": "running"}


def _retry_record(event: RetryScheduled, line: str) -> dict[str, Any]:
    wait = int(event.wait_seconds) if float(event.wait_seconds).is_integer() else event.wait_seconds
    return {
        "model": event.model,
        "attempt": event.attempt,
        "max_attempts": event.max_attempts,
        "cause": event.cause,
        "wait_seconds": wait,
        "line": line,
    }


def fit(text: str, limit: int) -> str:
    """`text`, or its beginning and a notice when its UTF-8 form is over `limit` bytes."""
    encoded = text.encode()
    if len(encoded) <= limit:
        return text
    room = limit - len(CUT_NOTICE.encode())
    return encoded[:room].decode(errors="ignore") + CUT_NOTICE


class ReplyWriter:
    """Streams one reply: `on_event` is the engine listener, `run` sends, `finish` sends the final text."""

    def __init__(
        self,
        transport: RoomTransport,
        target: ReplyTarget,
        *,
        interval: float = DEFAULT_EDIT_INTERVAL,
        on_posted: Callable[[str], None] | None = None,
        on_shown: Callable[[], None] | None = None,
    ) -> None:
        """`on_posted` gets the reply's event id once it is posted; `on_shown` is called after every send
        (a post or an edit) that went through."""
        self.transport, self.target, self.interval = transport, target, interval
        self.reply = ReplyText()
        self.reply_id: str | None = target.edit_of
        self._on_posted, self._on_shown = on_posted, on_shown
        self._sent: tuple[str, tuple[str, ...], Content] | None = None  # body, mentions, turn info
        self._wake = asyncio.Event()
        self._posted = asyncio.Event()
        if self.reply_id is not None:
            self._posted.set()
        self._finishing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"reply to {self.target.in_reply_to}")

    def on_event(self, event: AgentEvent) -> None:
        if self.reply.apply(event):
            self._wake.set()

    def show(self, text: str) -> None:
        """Add a finished paragraph of the reply written elsewhere (a team's combined answers)."""
        if text.strip():
            self.reply.paragraphs.append(text.strip())
            self._wake.set()

    def refresh(self) -> None:
        """Send the reply again soon: its text changed other than by an engine event."""
        self._wake.set()

    async def posted(self) -> str:
        """The reply's event id, once it was posted."""
        await self._posted.wait()
        assert self.reply_id is not None
        return self.reply_id

    async def finish(self, mentions: tuple[str, ...] = ()) -> str | None:
        """Stop streaming and send the reply as it ends; returns its event id (None if never sent).

        An interrupted reply is only ever an edit: a turn cut short before it posted anything posts nothing.
        """
        self._finishing.set()
        self._wake.set()
        if self._task is not None:
            await self._task
        if self.reply_id is None and self.reply.state == "interrupted":
            return None
        await self._send(self.reply.render() or EMPTY_REPLY, mentions)
        return self.reply_id

    async def _read_earlier(self) -> None:
        """A reply edited in place (regenerated, or resumed after a restart) keeps counting what its earlier
        answers spent: what was spent is spent, as the usage page counts it."""
        target = self.target
        if target.edit_of is None:
            return
        try:
            if target.thread_root is not None:
                events = await self.transport.thread_events(target.room_id, target.thread_root)
            else:
                events = await self.transport.room_messages(target.room_id, EARLIER_REPLY_WINDOW)
        except Exception:
            log.exception("Reading the reply %s in %s to edit failed", target.edit_of, target.room_id)
            return
        earlier = next((event for event in events if event.get("event_id") == target.edit_of), None)
        if earlier is not None:
            self.reply.earlier = spent(shown_content(earlier))

    async def _run(self) -> None:
        await self._read_earlier()
        while not self._finishing.is_set():
            await self._wake.wait()
            self._wake.clear()
            if self._finishing.is_set():
                return
            await self._send(self.reply.render(), self.reply.notified)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._finishing.wait(), self.interval)

    async def _send(self, body: str, mentions: tuple[str, ...]) -> None:
        """Post the reply, or edit it in place; a failed send is logged and retried with the next text."""
        turn = self.reply.turn()
        if not body or (body, mentions, turn) == self._sent:
            return
        try:
            if self.reply_id is None:
                await self._post_first(self._first_content(body, mentions, turn))
            else:
                added = tuple(user for user in mentions if user not in self._sent_mentions)
                edit = edit_content(self.reply_id, message_content(body, mentions, turn=turn), added)
                await self._post(edit, None)
        except Exception:
            log.exception("Sending a reply in %s as %s failed", self.target.room_id, self.target.sender)
            return
        self._sent = (body, mentions, turn)
        if self._on_shown is not None:
            self._on_shown()

    @property
    def _sent_mentions(self) -> tuple[str, ...]:
        return self._sent[1] if self._sent is not None else ()

    async def _post_first(self, content: Content) -> None:
        self.reply_id = await self._post(content, self.target.txn_id)
        self._posted.set()
        if self._on_posted is not None:
            self._on_posted(self.reply_id)

    def _first_content(self, body: str, mentions: tuple[str, ...], turn: Content) -> Content:
        relation = conversation_relation(self.target.thread_root, self.target.in_reply_to)
        return message_content(body, mentions, relates_to=relation, turn=turn)

    async def _post(self, content: Content, txn_id: str | None) -> str:
        sender, room_id = self.target.sender, self.target.room_id
        return await self.transport.send(sender, room_id, MESSAGE_EVENT, content, txn_id=txn_id)
