"""One agent reply in a room: posted once, then edited in place as the turn streams, at a bounded rate."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from miniroom.engine import events as ev
from miniroom.rooms.runtime.content import MESSAGE_EVENT, edit_content, message_content
from miniroom.rooms.transport import Content, RoomTransport

log = logging.getLogger(__name__)
DEFAULT_EDIT_INTERVAL = 0.7  # seconds between two edits of a streaming reply
TOOL_MARK = "🔧"
EMPTY_REPLY = "(no reply)"
# Matrix refuses events over 64 KiB, and an edit carries the body twice: longer replies are cut.
MAX_BODY_BYTES = 30_000
CUT_NOTICE = "\n\n… (cut: the reply is too long for one message)"


@dataclass(frozen=True, slots=True)
class ReplyTarget:
    """Where a reply goes: the room and thread (None: room level), or the earlier reply to edit in place."""

    room_id: str
    sender: str  # the agent's user id
    thread_root: str | None
    in_reply_to: str | None
    edit_of: str | None = None


class ReplyText:
    """The reply as people see it: one line per tool call, then the agent's text."""

    def __init__(self) -> None:
        self.tool_lines: list[str] = []
        self.paragraphs: list[str] = []  # one per finished assistant message with text
        self._current: list[str] = []  # the streaming message's deltas, joined only when read
        self.failure: str | None = None

    def apply(self, event: ev.AgentEvent) -> bool:
        """Take in one engine event; True when the visible text changed."""
        if isinstance(event, ev.TextDelta):
            self._current.append(event.text)
            return bool(event.text)
        if isinstance(event, ev.ToolStarted):
            self.tool_lines.append(f"{TOOL_MARK} {event.summary}")
            return True
        if isinstance(event, ev.MessageCompleted):
            finished = "".join(self._current).strip()
            if finished:
                self.paragraphs.append(finished)  # the next assistant message starts a new paragraph
            self._current = []
        return False

    @property
    def text(self) -> str:
        """The agent's own words (what a hand-off is read from)."""
        streaming = "".join(self._current).strip()
        return "\n\n".join([*self.paragraphs, streaming] if streaming else self.paragraphs)

    def render(self) -> str:
        parts = ["\n".join(self.tool_lines), self.text]
        body = fit("\n\n".join(part for part in parts if part), MAX_BODY_BYTES)
        return f"{body}\n\n{self.failure}" if body and self.failure else body or self.failure or ""


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
        posts: set[asyncio.Task[str]] | None = None,
    ) -> None:
        self.transport, self.target, self.interval = transport, target, interval
        self.reply = ReplyText()
        self.reply_id: str | None = target.edit_of
        self._on_posted = on_posted
        self._posts = posts if posts is not None else set()  # first posts still on their way (see _send)
        self._sent_body: str | None = None
        self._sent_mentions: tuple[str, ...] = ()
        self._wake = asyncio.Event()
        self._finishing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"reply to {self.target.in_reply_to}")

    def on_event(self, event: ev.AgentEvent) -> None:
        if self.reply.apply(event):
            self._wake.set()

    async def finish(self, failure: str | None = None, mentions: tuple[str, ...] = ()) -> str | None:
        """Stop streaming and send the complete reply; returns the reply's event id (None if never sent)."""
        self.reply.failure = failure
        self._finishing.set()
        self._wake.set()
        if self._task is not None:
            await self._task
        await self._send(self.reply.render() or EMPTY_REPLY, mentions)
        return self.reply_id

    def cancel(self) -> None:
        """Stop streaming without a final send (the turn was cancelled, e.g. at shutdown)."""
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while not self._finishing.is_set():
            await self._wake.wait()
            self._wake.clear()
            if self._finishing.is_set():
                return
            await self._send(self.reply.render(), ())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._finishing.wait(), self.interval)

    async def _send(self, body: str, mentions: tuple[str, ...]) -> None:
        """Post the reply, or edit it in place; a failed send is logged and retried with the next text."""
        if not body or (body == self._sent_body and mentions == self._sent_mentions):
            return
        try:
            if self.reply_id is None:
                # Shielded: a turn cancelled at shutdown while its reply is being posted still records the
                # reply, so the message is not answered a second time after the restart.
                posting = asyncio.create_task(self._post_first(self._first_content(body, mentions)))
                self._posts.add(posting)
                posting.add_done_callback(self._posts.discard)
                self.reply_id = await asyncio.shield(posting)
            else:
                added = tuple(user for user in mentions if user not in self._sent_mentions)
                await self._post(edit_content(self.reply_id, body, mentions=mentions, newly_mentioned=added))
        except Exception:
            log.exception("Sending a reply in %s as %s failed", self.target.room_id, self.target.sender)
            return
        self._sent_body, self._sent_mentions = body, mentions

    async def _post_first(self, content: Content) -> str:
        reply_id = await self._post(content)
        if self._on_posted is not None:
            self._on_posted(reply_id)
        return reply_id

    def _first_content(self, body: str, mentions: tuple[str, ...]) -> Content:
        target = self.target
        return message_content(
            body, thread_root=target.thread_root, in_reply_to=target.in_reply_to, mentions=mentions
        )

    async def _post(self, content: Content) -> str:
        return await self.transport.send(self.target.sender, self.target.room_id, MESSAGE_EVENT, content)
