"""Running one agent turn in a room: build the agent, stream its reply, report a failure, record it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from miniroom.agent import cli_turn, offer_person
from miniroom.config.errors import UserError
from miniroom.engine import (
    Agent,
    ApprovalRequest,
    Decision,
    Person,
    Session,
    ToolResult,
    TurnEnded,
    decide,
    denial_text,
    unanswered_calls,
)
from miniroom.rooms.content import TurnState
from miniroom.rooms.runtime.agents import AgentFactory
from miniroom.rooms.runtime.approvals import RoomApprovals, Waiting
from miniroom.rooms.runtime.child_threads import ChildThreads
from miniroom.rooms.runtime.coalescing import MidTurn
from miniroom.rooms.runtime.ledger import InFlight, Turn, TurnLedger, transaction_id
from miniroom.rooms.runtime.metrics import RoomMetrics
from miniroom.rooms.runtime.modes import AgentModes, response_scope
from miniroom.rooms.runtime.outbox import Outbox, SendFileTool, post_files
from miniroom.rooms.runtime.replies import DEFAULT_EDIT_INTERVAL, ReplyTarget, ReplyWriter
from miniroom.rooms.runtime.running import STOPPED_TURN, RunningTurn, RunningTurns
from miniroom.rooms.runtime.team_turns import ReplySink, TeamTurns
from miniroom.rooms.runtime.typing import TypingNotice
from miniroom.rooms.runtime.uploads import load_images
from miniroom.rooms.stopping import stopped_line
from miniroom.rooms.transport import RoomTransport

__all__ = ["Turn", "TurnOutcome", "TurnRunner"]

log = logging.getLogger(__name__)
REPLY_PART = "reply"
STOPPED = "miniroom stopped before the reply was complete; it is finished after the restart"
RERUN_REASON = "the turn was cut short by a restart and runs again"
SETTLE_SECONDS = 10.0  # how long a stop waits for interrupted replies to be marked


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    reply_id: str | None
    text: str  # the agent's own words, without tool lines or failure notice
    failed: bool


class TurnRunner:
    """Runs turns for the room runtime; every failure ends in a notice in the room, never an exception."""

    def __init__(
        self,
        transport: RoomTransport,
        factory: AgentFactory,
        ledger: TurnLedger,
        *,
        mentions: Callable[[str], tuple[str, ...]] = lambda text: (),
        edit_interval: float = DEFAULT_EDIT_INTERVAL,
        mid_turn: MidTurn | None = None,
        modes: AgentModes | None = None,
        metrics: RoomMetrics | None = None,
        approvals: RoomApprovals | None = None,
    ) -> None:
        """`mid_turn` checks a turn's engine agents between tool batches (None: messages only wait);
        `metrics` counts the turns and their requests; `approvals` shows the cards of calls that wait for a
        person (None: no one is asked, and such calls are refused)."""
        self.transport, self.factory, self.ledger = transport, factory, ledger
        self.mid_turn = mid_turn
        self.modes = modes  # `!mode` choices and the agents' access to miniroom-agent; None: neither
        self.mentions = mentions  # the user ids a reply's final text mentions, for its `m.mentions`
        self.edit_interval = edit_interval
        # replies of cancelled turns being marked interrupted, typing notices being withdrawn
        self.closing: set[asyncio.Task[Any]] = set()
        self.running = RunningTurns(metrics)
        self.approvals = approvals
        self.teams = TeamTurns(factory, failure_reason, self._team_person)

    def _team_person(self, turn: Turn, sink: ReplySink) -> Person | None:
        """Who decides on a team member's calls: as for an agent, in the team's reply."""
        if self.approvals is None or not isinstance(sink, ReplyWriter):
            return None
        return self.approvals.person(turn, sink)

    async def run(self, turn: Turn, display_name: str) -> TurnOutcome:
        """Run `turn` to its end, logged from start to end with its outcome, duration and usage; the agent
        shows as typing until its reply is first sent or the turn ends."""
        running = self.running.begin(turn, self.mid_turn.hook if self.mid_turn is not None else None)
        typing = self._typing(turn)
        outcome: TurnState = "failed"  # what an unexpected exception on the way out counts as
        try:
            result = await self._reply(turn, display_name, running, typing.end)
            outcome = "failed" if result.failed else "done"
            return result
        except asyncio.CancelledError:
            outcome = "interrupted"
            raise
        finally:
            self.running.end(running, outcome)
            self._later(typing.ended(), f"typing of {turn.agent} for {turn.event_id}")

    def _typing(self, turn: Turn) -> TypingNotice:
        """The agent shown as typing where its reply goes, from now on."""
        where, sender = turn.conversation, self.transport.agent_user_id(turn.agent)
        notice = TypingNotice(self.transport, sender, where.room_id, where.thread_root)
        notice.start()
        return notice

    async def _reply(
        self, turn: Turn, display_name: str, running: RunningTurn, shown: Callable[[], None]
    ) -> TurnOutcome:
        earlier = self.ledger.in_flight(turn.event_id, turn.agent)
        writer = ReplyWriter(
            self.transport,
            self._target(turn, earlier),
            interval=self.edit_interval,
            on_posted=lambda reply_id: self.ledger.posted(turn, reply_id),
            on_shown=shown,
        )
        writer.start()
        running.published = lambda: writer.reply.text
        running.reply_id = lambda: writer.reply_id
        threads = ChildThreads(
            self.transport, writer, lambda part: transaction_id(turn.event_id, turn.agent, part)
        )
        outbox = Outbox()
        try:
            failure = await self._prompt(turn, writer, earlier, running, threads, outbox)
        except asyncio.CancelledError:
            writer.reply.end("interrupted", STOPPED, f"⚠ {display_name}: {STOPPED}")
            self._close_later(writer, threads)
            raise
        if running.stopped_by is not None:
            stopped = f"stopped by {running.stopped_by}"
            writer.reply.end("interrupted", stopped, stopped_line(display_name, running.stopped_by))
            failure = failure or stopped  # a stopped reply hands nothing on
        elif failure is None:
            writer.reply.end("done")
        else:
            writer.reply.end("failed", failure, f"⚠ {display_name} failed: {failure}")
            where = turn.conversation
            log.warning(
                "Agent %s failed to answer %s in room %s (thread %s): %s",
                turn.agent,
                turn.event_id,
                where.room_id,
                where.thread_root or "none, room level",
                failure,
            )
        reply_id = await self._finish(writer, threads, self.mentions(writer.reply.text))
        if outbox.files and reply_id is not None:
            where = turn.conversation
            sender = writer.target.sender
            await post_files(self.transport, outbox, sender, where.room_id, where.thread_root, reply_id)
        self.ledger.complete(turn, reply_id)
        if self.approvals is not None:
            self.approvals.forget(turn)
        return TurnOutcome(reply_id, writer.reply.text, failure is not None)

    def _target(self, turn: Turn, earlier: InFlight | None) -> ReplyTarget:
        conversation = turn.conversation
        return ReplyTarget(
            room_id=conversation.room_id,
            sender=self.transport.agent_user_id(turn.agent),
            thread_root=conversation.thread_root,
            in_reply_to=turn.event_id,
            edit_of=turn.edit_of or (earlier.reply_id if earlier is not None else None),
            txn_id=transaction_id(turn.event_id, turn.agent, REPLY_PART),
        )

    async def _finish(
        self, writer: ReplyWriter, threads: ChildThreads, mentions: tuple[str, ...] = ()
    ) -> str | None:
        """Send the reply as it ended, then its subagents' threads, then the reply linking to them."""
        await writer.finish(mentions)
        await threads.finish()
        return await writer.finish(mentions)

    def _close_later(self, writer: ReplyWriter, threads: ChildThreads) -> None:
        self._later(self._finish(writer, threads), f"interrupt {writer.target.in_reply_to}")

    def _later(self, work: Coroutine[Any, Any, Any], name: str) -> None:
        """Finish `work` after the turn, even a cancelled one; `settle` waits for it."""
        closing = asyncio.create_task(work, name=name)
        self.closing.add(closing)
        closing.add_done_callback(self.closing.discard)

    async def settle(self) -> None:
        """Wait (a while) for the replies of cancelled turns to be marked interrupted."""
        if not self.closing:
            return
        _done, late = await asyncio.wait(set(self.closing), timeout=SETTLE_SECONDS)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)

    async def _prompt(
        self,
        turn: Turn,
        writer: ReplyWriter,
        earlier: InFlight | None,
        running: RunningTurn,
        threads: ChildThreads,
        outbox: Outbox,
    ) -> str | None:
        """Run the agent's (or team's) turn with `writer`, `running` and the subagents' `threads` listening,
        the files it sends going to `outbox`; the reason it failed, or None."""
        try:
            if self.teams.is_team(turn.agent):
                self.ledger.begin(turn, None)
                return await self.teams.run(turn, writer, running)
            return await self._agent_turn(turn, writer, earlier, running, threads, outbox)
        except (UserError, OSError) as error:  # what a person can fix, or the disk or system refused
            return str(error)
        except Exception as error:
            log.exception("The turn of %s for %s crashed", turn.agent, turn.event_id)
            return f"{type(error).__name__}: {error}"
        finally:
            running.detach()  # closed agents take no notices

    async def _agent_turn(
        self,
        turn: Turn,
        writer: ReplyWriter,
        earlier: InFlight | None,
        running: RunningTurn,
        threads: ChildThreads,
        outbox: Outbox,
    ) -> str | None:
        agent: Agent | None = None
        modes = self.modes
        minimal = modes is not None and modes.minimal(turn.agent, turn.conversation)  # kept to the turn's end
        try:
            if modes is not None and minimal and (broken := modes.broken(turn)) is not None:
                return broken
            path = self.factory.session_path(turn.agent, turn.conversation)
            waits = self._waits(turn, path) if earlier is not None else {}
            leaf = earlier.session_leaf if earlier is not None else None
            stored = earlier is not None and not waits and rewind_to_prompt(path, leaf, turn.prompt)
            command_line = modes.command_line(turn.agent, minimal=minimal) if modes is not None else None
            agent = self.factory.build(turn.agent, turn.conversation, command_line, resume_calls=waits)
            if not minimal:  # people get files back in rooms; minimal mode keeps its one Bash tool
                agent.reconfigure(replace(agent.config, tools=[*agent.config.tools, SendFileTool(outbox)]))
            if self.approvals is not None:
                offer_person(agent, self.approvals.person(turn, writer))
            self.ledger.begin(turn, agent.session.leaf_id)
            agent.subscribe(writer.on_event)
            agent.subscribe(running.on_event)
            agent.subscribe(threads.on_event)
            running.attach(agent)
            async with cli_turn(modes.access if modes else None, agent, response_scope(turn)) as values:
                if running.stopped_by is not None:  # stopped before it began: it does not begin
                    return None
                if waits:
                    decided = await self._decided(agent, waits) if minimal else None
                    ended = await agent.resume_calls(decided, values)
                elif stored:
                    ended = await agent.continue_turn(values)
                else:
                    images = load_images(self.factory.workspace(turn.agent), turn.images)
                    ended = await agent.prompt(turn.prompt, values, images)
        finally:
            running.detach()
            if agent is not None:
                await agent.aclose()
        return failure_reason(ended)

    def _waits(self, turn: Turn, path: Path) -> dict[str, Waiting]:
        """The cards the turn waited on when miniroom stopped, by call, whose calls the session still
        holds without a result: the turn resumes there."""
        if self.approvals is None or not path.exists():
            return {}
        earlier = {waiting.call_id: waiting for waiting in self.approvals.earlier(turn)}
        if not earlier:
            return {}
        session = Session.load(path)
        try:
            waiting = [call.id for call in unanswered_calls(session.messages())]
        finally:
            session.close()
        return {call_id: earlier[call_id] for call_id in waiting if call_id in earlier}

    async def _decided(self, agent: Agent, waits: dict[str, Waiting]) -> dict[str, ToolResult]:
        """Minimal mode: the decisions on the Bash commands that waited, none of which runs again (the
        agent is told so, and may run the command again)."""
        results = {}
        for call_id, waiting in waits.items():
            request = ApprovalRequest(**waiting.detail)
            timeout = agent.config.tool_settings.approval_timeout
            decision = await decide(agent.config.person, request, timeout)
            text = restart_text(decision) if decision.approved else denial_text(request, decision)
            results[call_id] = ToolResult.text(text, is_error=True)
        return results


def restart_text(decision: Decision) -> str:
    return (
        f"This command did not run: miniroom restarted while it waited for approval, and {decision.by} "
        "approved it afterwards. Run it again if it is still needed."
    )


def rewind_to_prompt(path: Path, leaf: str | None, prompt: str) -> bool:
    """Whether the session at `path` holds `prompt` right after entry `leaf` (stored by a turn a restart cut
    short); if so, the session continues from that prompt again, the partial answer left on a side branch."""
    if not path.exists():
        return False
    session = Session.load(path)
    try:
        branch = session.branch()
        ids = [entry["id"] for entry in branch]
        start = 0 if leaf is None else ids.index(leaf) + 1 if leaf in ids else len(branch)
        following = next((entry for entry in branch[start:] if entry["type"] == "message"), None)
        if following is None or not _is_prompt(following.get("message"), prompt):
            return False
        session.rewind(following["id"], RERUN_REASON)
        return True
    finally:
        session.close()


def _is_prompt(message: Any, prompt: str) -> bool:
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, str):
        return content == prompt
    texts = [block.get("text") for block in content or () if isinstance(block, dict)]
    # the prompt is the first text block; hooks' context for it (UserPromptSubmit, SessionStart) follows
    return bool(texts) and texts[0] == prompt


def failure_reason(ended: TurnEnded) -> str | None:
    if ended.error is not None:
        return str(ended.error)
    if ended.aborted:
        return STOPPED_TURN
    return None
