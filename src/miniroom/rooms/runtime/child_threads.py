"""Subagents in rooms: each child conversation is a thread of its own in the parent's room.

Matrix threads do not nest, and a thread root may carry no relation of its own, so a child thread is rooted at
a room-level notice, "Subagent: <description>", linking back to the parent's reply; the child's reply streams
into that thread, edited in place with its tool lines and its spend, and the parent reply's tool line links to
the thread. Plain threads and matrix.to links work on both transports and in any Matrix client. The runtime
ignores what agents send, so nothing posted here starts a turn.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Callable
from dataclasses import replace

from miniroom.agent import CHILD_EVENT_KEY, SubagentStatus, short_count
from miniroom.engine import AgentEvent, ToolStarted, ToolUpdated
from miniroom.rooms.content import MESSAGE_EVENT, message_content, permalink
from miniroom.rooms.runtime.replies import ReplyTarget, ReplyWriter
from miniroom.rooms.transport import Content, RoomTransport

log = logging.getLogger(__name__)
NOTICE = "m.notice"
PARENT_LINK_TEXT = "the reply that asked for it"
TransactionId = Callable[[str], str]  # part name -> the send's transaction id


def spend_line(status: SubagentStatus) -> str:
    usage = status.usage
    return f"💸 {short_count(usage.total_tokens)} tokens · ${usage.cost:.4f}"


def notice_content(description: str, parent_link: str) -> Content:
    """The child thread's root: its task and a link to the parent's reply, named rather than a bare address
    (Markdown in the body for the web chat, HTML for other Matrix clients)."""
    body = f"Subagent: {description} (for [{PARENT_LINK_TEXT}]({parent_link}))"
    link = f'<a href="{html.escape(parent_link)}">{PARENT_LINK_TEXT}</a>'
    return message_content(body, formatted_body=f"Subagent: {html.escape(description)} (for {link})")


class ChildThread:
    """One subagent's thread: its root posted once the parent's reply exists, then the child's reply."""

    def __init__(
        self,
        transport: RoomTransport,
        parent: ReplyWriter,
        call_id: str,
        status: SubagentStatus,
        txn: TransactionId,
    ) -> None:
        self.transport, self.parent, self.call_id, self.txn = transport, parent, call_id, txn
        self.status = status
        self.summary = ""  # the parent's tool line for this call, without its note
        target = parent.target
        placeholder = ReplyTarget(target.room_id, target.sender, None, None, txn_id=txn(f"{call_id}:reply"))
        self.writer = ReplyWriter(transport, placeholder, interval=parent.interval)
        self.link: str | None = None
        self._opening = asyncio.create_task(self._open(), name=f"subagent thread {call_id}")

    async def _open(self) -> None:
        target = self.parent.target
        parent_id = await self.parent.posted()
        content = {
            **notice_content(self.status.description, permalink(target.room_id, parent_id)),
            "msgtype": NOTICE,
        }
        root = await self.transport.send(
            target.sender, target.room_id, MESSAGE_EVENT, content, txn_id=self.txn(f"{self.call_id}:root")
        )
        self.writer.target = replace(self.writer.target, thread_root=root, in_reply_to=root)
        self.writer.start()
        self.link = permalink(target.room_id, root)
        self._annotate()

    def update(self, status: SubagentStatus, event: AgentEvent | None) -> None:
        self.status = status
        self.writer.reply.footer = spend_line(status)
        if event is not None:
            self.writer.on_event(event)
        self.writer.refresh()
        if status.phase != "end":
            return
        background = status.task is not None
        if background and self.parent.reply.task_ended(self.call_id, status.state, status.outcome):
            self.parent.refresh()
        self._annotate()

    def _annotate(self) -> None:
        if self.link is None:
            return
        state = f" ({self.status.state})" if self.status.phase == "end" else ""
        if self.parent.reply.annotate_tool(self.call_id, self.summary, f"→ {self.link}{state}"):
            self.parent.refresh()

    async def finish(self) -> None:
        """Wait for the root, then send the child's reply as it ended (the parent's reply is sent by now)."""
        if self.parent.reply_id is None:  # the parent's reply could not be posted: no thread to link to it
            self._opening.cancel()
        try:
            await self._opening
        except asyncio.CancelledError:
            return
        except Exception:
            log.exception("Posting the thread of subagent %s failed", self.status.description)
            return
        status = self.status
        if status.state == "done":
            self.writer.reply.end("done")
        elif status.phase == "end":
            self.writer.reply.end("failed", status.outcome, f"⏹ {status.outcome}")
        else:
            self.writer.reply.end("interrupted", "the parent turn ended first")
        await self.writer.finish()


class ChildThreads:
    """The child threads of one room turn; `on_event` listens to the parent agent."""

    def __init__(self, transport: RoomTransport, parent: ReplyWriter, txn: TransactionId) -> None:
        self.transport, self.parent, self.txn = transport, parent, txn
        self._threads: dict[str, ChildThread] = {}
        self._summaries: dict[str, str] = {}

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, ToolStarted):
            self._summaries[event.call_id] = event.summary
            return
        if not isinstance(event, ToolUpdated):
            return
        status = SubagentStatus.of(event.details)
        if status is None or status.session is None:  # no child session: nothing to show
            return
        thread = self._threads.get(event.call_id)
        if thread is None:
            thread = ChildThread(self.transport, self.parent, event.call_id, status, self.txn)
            thread.summary = self._summaries.get(event.call_id, status.description)
            self._threads[event.call_id] = thread
        thread.update(status, event.details.get(CHILD_EVENT_KEY))

    async def finish(self) -> None:
        """Finish every child thread (each reply sent as it ended); the parent's reply is sent before."""
        await asyncio.gather(*(thread.finish() for thread in self._threads.values()))
