"""One subagent run: a child agent on its own session, its progress reported, stoppable at any point.

A run first waits for a slot of the chat's limit. Stopped while it waits, it never gets a child session;
stopped while it runs, the child is aborted and keeps what it produced, and its session ends with a stop note.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from miniroom.agent.cli_access import subagent_cli
from miniroom.agent.subagents.progress import SubagentStatus
from miniroom.agent.subagents.slots import Slots
from miniroom.agent.subagents.store import TaskState
from miniroom.engine import (
    CUSTOM_ENTRY,
    Agent,
    AgentEvent,
    CommandGrants,
    Session,
    ToolEnded,
    ToolStarted,
    TurnEnded,
    UsageReported,
)
from miniroom.llm import Usage

STOP_NOTE_TYPE = "stop_note"  # a `custom` session entry: why a subagent's session ended early
NO_ANSWER = "(the subagent ended without an answer)"
PARENT_STOPPED = "the parent chat was stopped"


@dataclass(frozen=True)
class ChildSpec:
    """What the model asked for, and whose child it is (the parent session and its tool call)."""

    description: str
    prompt: str
    profile: str | None
    parent_session: str
    parent_call: str
    # a minimal subagent's: the parent response's grants, under which its own shells reach its tools
    grants: CommandGrants | None = None
    resume: Path | None = None  # the session file of an earlier subagent this run continues

    @property
    def minimal(self) -> bool:
        return self.grants is not None


class ChildFactory(Protocol):
    """Builds the child agents of one root chat (the agent layer's builder does)."""

    def check(self, profile: str | None, *, minimal: bool = False) -> None:
        """Raise ValueError saying why a child could not use `profile` (None: the parent's settings), or
        minimal mode."""

    def build(self, spec: ChildSpec) -> Agent:
        """A child agent on a new session linked to its parent (or on the earlier session `spec.resume`, with
        the settings it froze); raises ValueError on bad settings."""


Report = Callable[[SubagentStatus, AgentEvent | None], None]


def append_stop_note(session: Session, note: str) -> None:
    session.append(CUSTOM_ENTRY, customType=STOP_NOTE_TYPE, data={"note": note})


def stopped_text(note: str, partial: str = "", started: bool = True) -> str:
    """What the model reads of a stopped subagent: why it stopped, and what it wrote until then."""
    head = f"Stopped: {note}." if started else f"Stopped before it started: {note}."
    return f"{head}\n\nWhat it wrote before it stopped:\n{partial}" if partial else head


class ChildRun:
    """One subagent, from its wait for a slot to its end; `status` always says where it stands."""

    def __init__(
        self,
        spec: ChildSpec,
        factory: ChildFactory,
        report: Report,
        spend: Callable[[Usage], None],
        task: int | None,
    ) -> None:
        self.spec, self._factory, self._report, self._spend = spec, factory, report, spend
        self.status = SubagentStatus(spec.description, task=task)
        self.child: Agent | None = None
        self.stop_note: str | None = None
        self.partial = ""  # what a stopped child wrote in its last answer
        self._running: asyncio.Task[SubagentStatus] | None = None

    def start(self, slots: Slots) -> asyncio.Task[SubagentStatus]:
        self._running = asyncio.create_task(self._run(slots), name=f"subagent {self.spec.description}")
        return self._running

    async def finished(self) -> SubagentStatus:
        """Its final status once it ended; cancelling the caller stops the run and still waits for its end."""
        assert self._running is not None, "start() first"
        try:
            await asyncio.wait({self._running})
        except asyncio.CancelledError:
            await self.stop(PARENT_STOPPED)
            raise
        if self._running.cancelled():  # stopped before its first step
            return self._end("stopped", stopped_text(self.stop_note or "cancelled", started=False))
        return self._running.result()

    async def stop(self, note: str) -> None:
        """Stop it: a waiting run never starts, a running child is aborted; returns once it ended."""
        if self._running is None or self._running.done():
            return
        self.stop_note = self.stop_note or note
        if self.child is None:
            self._running.cancel()
        else:
            self.child.abort()
        await asyncio.wait({self._running})

    async def _run(self, slots: Slots) -> SubagentStatus:
        try:
            await slots.acquire()
        except asyncio.CancelledError:
            return self._end("stopped", stopped_text(self.stop_note or "cancelled", started=False))
        try:
            return await self._run_child()
        finally:
            slots.release()

    async def _run_child(self) -> SubagentStatus:
        try:
            child = self._factory.build(self.spec)
        except Exception as error:  # bad settings for the child: the model reads why
            return self._end("failed", str(error))
        self.child = child
        self._update(state="running", phase="start", session=child.session.id)
        child.subscribe(self._on_child_event)
        try:
            async with subagent_cli(self.spec.grants, child):
                ended = await child.prompt(self.spec.prompt)
            if self.stop_note is not None:
                append_stop_note(child.session, self.stop_note)
        finally:
            await child.aclose()
        return self._ended(ended)

    def _ended(self, ended: TurnEnded) -> SubagentStatus:
        if self.stop_note is not None or ended.aborted:
            self.partial = ended.message.text.strip()
            return self._end("stopped", stopped_text(self.stop_note or "aborted", self.partial))
        if ended.error is not None:
            return self._end("failed", str(ended.error))
        return self._end("done", ended.message.text.strip() or NO_ANSWER)

    def _end(self, state: TaskState, outcome: str) -> SubagentStatus:
        self._update(state=state, phase="end", tool=None, outcome=outcome)
        return self.status

    def _update(self, event: AgentEvent | None = None, **changes: object) -> None:
        self.status = self.status.moved(**changes)
        self._report(self.status, event)

    def _on_child_event(self, event: AgentEvent) -> None:
        if isinstance(event, ToolStarted):
            self._update(event, phase="progress", tool=event.summary)
        elif isinstance(event, ToolEnded):
            self._update(event, phase="progress", tool=None)
        elif isinstance(event, UsageReported):
            self._spend(event.request)
            self._update(event, phase="progress", usage=event.session)
        elif not isinstance(event, TurnEnded):
            self._update(event, phase="progress")
