"""The subagents of one chat: `agent` calls and background tasks, sharing one limit of running children.

A background task's outcome enters the running turn through the turn's inbox, and a hold on the inbox keeps
the turn open until every task finished; a turn that ends anyway stops them all.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from miniroom.agent.subagents.child import (
    PARENT_STOPPED,
    ChildFactory,
    ChildRun,
    ChildSpec,
    Report,
    append_stop_note,
    stopped_text,
)
from miniroom.agent.subagents.progress import SubagentStatus
from miniroom.agent.subagents.resume import EarlierChild, find_child
from miniroom.agent.subagents.slots import Slots
from miniroom.agent.subagents.store import (
    SHUTDOWN_NOTE,
    TaskRecord,
    TaskStore,
    close_dead,
    now_iso,
    owner_alive,
)
from miniroom.engine import (
    PARENT_CALL_KEY,
    AgentEvent,
    Session,
    SessionError,
    ToolContext,
    child_session_paths,
)
from miniroom.llm import AssistantMessage, ToolCall, UserMessage
from miniroom.tools.output import keep_head

log = logging.getLogger(__name__)
STOPPED_BY_REQUEST = "stopped with agent_stop"


@dataclass(frozen=True)
class TaskRequest:
    """What a subagent call asks for."""

    description: str
    prompt: str
    profile: str | None = None
    minimal: bool = False  # a minimal-mode subagent, its shell reaching its tools through the parent's CLI
    resume: EarlierChild | None = None  # the earlier subagent of this chat to continue


def capped(text: str, session: str | None) -> str:
    """`text` within the shared output caps, saying where the whole of it is when it was cut."""
    kept = keep_head(text)
    if not kept.truncated:
        return text
    where = (
        f" The whole answer is in session {session} (`miniroom sessions show {session}`)." if session else ""
    )
    return f"{kept.text}\n\n[Cut to the first {kept.kept_lines} of {kept.total_lines} lines.{where}]"


def with_id(text: str, session: str | None) -> str:
    """`text` ending with the subagent's id, which `agent` with `resume` continues it by."""
    return f"{text}\n\n[subagent {session}]" if session else text


def outcome_message(record: TaskRecord) -> str:
    """What the model reads when a background task finished."""
    head = f"Background task {record.number} ({record.description})"
    if record.state == "done":
        text = f"{head} finished. Its answer:\n\n{capped(record.answer or '', record.session)}"
    else:
        text = f"{head} failed:\n\n{capped(record.error or '', record.session)}"
    return with_id(text, record.session)


def check_text(record: TaskRecord, live: SubagentStatus | None) -> str:
    """agent_check's answer: the state, and the answer, the error or the stop note once it ended."""
    head = f"Task {record.number} ({record.description}): {record.state}"
    if not record.finished_state:
        if live is None:
            return f"{head}, in another miniroom process (pid {record.owner.get('pid')})."
        if record.state == "queued":
            return f"{head}, waiting for a free subagent slot."
        doing = f", now {live.tool}" if live.tool else ""
        return f"{head}{doing}; {live.usage.total_tokens:,} tokens so far."
    if record.state == "done":
        body = record.answer or ""
    elif record.state == "failed":
        body = record.error or ""
    else:
        body = stopped_text(
            record.note or "cancelled", record.answer or "", started=record.session is not None
        )
    return with_id(f"{head}.\n\n{capped(body, record.session)}" if body else f"{head}.", record.session)


@dataclass(frozen=True)
class ChatSessions:
    """Where a root chat's subagent sessions are kept, and the ids the chat had (one before new settings)."""

    folder: Path
    ids: tuple[str, ...]


class SubagentManager:
    """Runs the subagents of one root chat; its background tasks live in `store`."""

    def __init__(
        self, factory: ChildFactory, store: TaskStore, sessions: ChatSessions, max_parallel: int
    ) -> None:
        self.factory, self.store, self.sessions = factory, store, sessions
        self.session_id = sessions.ids[0]
        self.slots = Slots(max_parallel)
        self._runs: dict[int, tuple[ChildRun, asyncio.Task[None]]] = {}
        self._continuing: set[str] = set()  # the earlier subagents being continued now

    def earlier_child(self, child_id: str) -> EarlierChild:
        """A subagent of this chat to continue; ValueError says why `child_id` is none, or is busy."""
        child = find_child(self.sessions.folder, child_id, self.sessions.ids)
        running = (r.session for r in self.store.records.values() if not r.finished_state)
        if child.id in self._continuing or child.id in running:
            raise ValueError(f"Subagent {child.id} ({child.description}) is still running; wait for its end.")
        return child

    def _spec(self, request: TaskRequest, ctx: ToolContext) -> ChildSpec:
        grants = ctx.command_grants if request.minimal else None
        resume = request.resume.path if request.resume is not None else None
        return ChildSpec(
            request.description, request.prompt, request.profile, self.session_id, ctx.call_id, grants, resume
        )

    async def run(self, request: TaskRequest, ctx: ToolContext) -> SubagentStatus:
        """An `agent` call: the child runs (once a slot is free) and its final status is returned."""

        def report(status: SubagentStatus, event: AgentEvent | None) -> None:
            ctx.report(status.details(event))

        run = ChildRun(self._spec(request, ctx), self.factory, report, ctx.spend, task=None)
        busy = request.resume.id if request.resume is not None else ""
        self._continuing.add(busy)
        try:
            run.start(self.slots)
            return await run.finished()
        finally:
            self._continuing.discard(busy)

    def start(self, request: TaskRequest, ctx: ToolContext) -> TaskRecord:
        """An `agent_start` call: the task is queued and its record returned at once."""
        record = self.store.add(request.description, request.prompt, ctx.call_id, request.profile)
        run = ChildRun(
            self._spec(request, ctx), self.factory, self._reporter(record, ctx), ctx.spend, record.number
        )
        run.start(self.slots)
        hold = ctx.inbox.hold(stop=lambda: self._stop_quietly(record.number))
        follow = asyncio.create_task(self._follow(record, run, ctx, hold.release))
        self._runs[record.number] = (run, follow)
        return record

    def live_status(self, number: int) -> SubagentStatus | None:
        entry = self._runs.get(number)
        return entry[0].status if entry is not None else None

    async def stop(self, number: int) -> bool:
        """agent_stop: stop a running task or cancel a waiting one; False when this chat does not run it."""
        return await self._stop(number, STOPPED_BY_REQUEST)

    async def _stop(self, number: int, note: str) -> bool:
        entry = self._runs.get(number)
        if entry is None:
            return False
        run, follow = entry
        await run.stop(note)
        await asyncio.wait({follow})
        return True

    async def _stop_quietly(self, number: int) -> None:
        await self._stop(number, PARENT_STOPPED)

    def _reporter(self, record: TaskRecord, ctx: ToolContext) -> Report:
        def report(status: SubagentStatus, event: AgentEvent | None) -> None:
            if status.phase == "start":
                record.state, record.session = "running", status.session
                run = self._runs.get(record.number)
                child = run[0].child if run is not None else None
                record.session_path = str(child.session.path) if child is not None else None
                self.store.save()
            ctx.report(status.details(event))

        return report

    async def _follow(
        self, record: TaskRecord, run: ChildRun, ctx: ToolContext, release: Callable[[], None]
    ) -> None:
        try:
            status = await run.finished()
        except Exception as error:  # a bug in a child run fails the task, not the chat
            log.exception("Background task %s (%s) crashed", record.number, record.description)
            status = run.status.moved(state="failed", phase="end", outcome=f"{type(error).__name__}: {error}")
        try:
            self._close(record, status, run)
            if status.state != "stopped":  # a stopped task's stopper already knows
                ctx.inbox.put(UserMessage.of_text(outcome_message(record)))
        finally:
            release()

    def _close(self, record: TaskRecord, status: SubagentStatus, run: ChildRun) -> None:
        record.state, record.usage, record.finished = status.state, status.usage, now_iso()
        record.session = status.session or record.session
        if status.state == "done":
            record.answer = status.outcome
        elif status.state == "failed":
            record.error = status.outcome
        else:
            record.note, record.answer = run.stop_note or "cancelled", run.partial or None
        self.store.save()


def open_task_store(agent_dir: Path, session_id: str, previous_id: str | None = None) -> TaskStore:
    """The chat's tasks, those a dead process left unfinished closed as stopped, their sessions noted too;
    a session that took over `previous_id`'s history (new settings) takes over its tasks as well."""
    store = TaskStore.of_session(agent_dir, session_id)
    carried = previous_id is not None and not store.records
    if carried and previous_id is not None:
        store.records = TaskStore.of_session(agent_dir, previous_id).records
    closed = close_dead(list(store.records.values()), owner_alive)
    for record in closed:
        if record.session_path:
            _note_in_session(Path(record.session_path), record.note or "")
    if closed or (carried and store.records):
        store.save()
    return store


def close_interrupted_children(
    session: Session, call_ids: Collection[str], folder: Path | None = None
) -> None:
    """The subagents of the calls a dead process left without a result, those they continued too: their
    sessions (in `folder`, by default beside the parent's) get the stop note."""
    if not call_ids:
        return
    continued = _continued_by(session, call_ids)
    where = session.path if folder is None else folder / session.path.name
    for path, header in child_session_paths(where, session.id).items():
        if header.get(PARENT_CALL_KEY) in call_ids or header.get("id") in continued:
            _note_in_session(path, SHUTDOWN_NOTE)


def _continued_by(session: Session, call_ids: Collection[str]) -> set[str]:
    """The subagent ids that the `agent` calls `call_ids` of `session` continued (`resume`)."""
    calls = (
        block
        for message in session.history()
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ToolCall) and block.id in call_ids and block.name == "agent"
    )
    return {str(call.arguments["resume"]) for call in calls if call.arguments.get("resume")}


def _note_in_session(path: Path, note: str) -> None:
    try:
        session = Session.load(path)
    except SessionError as error:
        log.warning("The session of a stopped background task cannot take its stop note: %s", error)
        return
    try:
        session.repair_interrupted_tool_calls()
        append_stop_note(session, note)
    finally:
        session.close()
