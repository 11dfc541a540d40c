"""Calls through `miniroom-agent`: submitted by a shell command of a response, run in miniroom, and waited
for on an event per call (the server holds a waiting request; nobody polls). One response keeps at most
1024 receipts and runs at most 64 calls at once (a request held on a call is not one more); its
`max_tool_calls_per_turn` counts these calls."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from miniroom.agent import tool_name
from miniroom.engine import (
    NO_HOOKS,
    AgentEvent,
    Tool,
    ToolContext,
    ToolEnded,
    ToolResult,
    ToolSource,
    ToolStarted,
    TurnHooks,
    run_hooked,
)
from miniroom.llm import ToolCall, UserContent
from miniroom.minimal.catalog import find_tool
from miniroom.minimal.errors import bad_input, conflict, not_found, refused, too_many
from miniroom.minimal.grants import Clock, ResponseGrant, Ticket
from miniroom.minimal.outcomes import outcome_of
from miniroom.minimal.receipts import Owner, Receipt, ReceiptStore, Status

MAX_RECEIPTS = 1024
MAX_OPERATIONS = 64  # calls running at once
MAX_HELD = 1024  # requests held on calls at once (waits and submissions waiting for their call)
MAX_WAIT_SECONDS = 24 * 60 * 60.0
CALL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,63}\Z")
CANCELLED = "The call was stopped: its response ended or was aborted before it finished."
RETURNED = (
    "this shell command's bash call has returned, so it can submit no more calls (a background job "
    "cannot either); run the work from a bash command of its own"
)


@dataclass(frozen=True)
class Workbench:
    """What a response's shell commands reach, taken from its agent when the response starts."""

    tools: Mapping[str, Tool]  # by qualified name
    documents: Mapping[str, str]
    # how a call runs: the agent's folder, timeout and settings; its progress, spend and messages reach the
    # turn, as for the agent's own calls
    context: Callable[[ToolCall], ToolContext]
    max_calls: int | None  # max_tool_calls_per_turn
    emit: Callable[[AgentEvent], None]  # tool-trace entries, as for the agent's own calls
    workspace: Path | None
    hooks: TurnHooks = NO_HOOKS  # the agent's: deny rules and PreToolUse/PostToolUse hooks apply alike
    sources: Sequence[ToolSource] = ()  # the agent's MCP servers: the same connections its requests use

    async def current_tools(self) -> dict[str, Tool]:
        """Its tools and its sources' current ones (an MCP server connects at the first ask), qualified."""
        tools = dict(self.tools)
        for source in self.sources:
            tools.update({tool_name(tool.name).qualified: tool for tool in await source.tools()})
        return tools


@dataclass(frozen=True)
class Submission:
    tool: str
    arguments: dict[str, Any]
    call_id: str
    wait: float


def check_call_id(call_id: str) -> str:
    if not CALL_ID.match(call_id):
        raise bad_input(f"call id {call_id[:80]!r} must be a UUID (letters, digits and '-', at most 64)")
    return call_id


def check_wait(seconds: float) -> float:
    if not 0 <= seconds <= MAX_WAIT_SECONDS:
        raise bad_input(f"the timeout must be between 0 and {MAX_WAIT_SECONDS:g} seconds, not {seconds:g}")
    return seconds


def canonical_request(tool: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"tool": tool, "arguments": arguments}, sort_keys=True, ensure_ascii=False)


class CallBook:
    """Receipts in the store, and the end of each call still running in this process, for waiters."""

    def __init__(self, store: ReceiptStore) -> None:
        self.store = store
        self._ends: dict[str, asyncio.Event] = {}

    def receipt(self, call_id: str, owner: Owner) -> Receipt:
        stored = self.store.get(check_call_id(call_id))
        if stored is None or stored.owner != owner:
            raise not_found(f"no call {call_id} in this conversation: use an id a tools call printed")
        return stored.receipt

    def open(self, receipt: Receipt, owner: Owner, response: str, request: str) -> None:
        self.store.add(receipt, owner, response, request)
        if not receipt.done:
            self._ends[receipt.call_id] = asyncio.Event()

    def record(self, receipt: Receipt) -> None:
        self.store.update(receipt)
        if receipt.done and (end := self._ends.pop(receipt.call_id, None)) is not None:
            end.set()

    async def wait(self, call_id: str, owner: Owner, within: float) -> Receipt:
        """The receipt once the call ended, or as it stands after `within` seconds."""
        receipt = self.receipt(call_id, owner)
        end = self._ends.get(call_id)
        if not receipt.done and end is not None and within > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(end.wait(), within)
            receipt = self.receipt(call_id, owner)
        return receipt


@dataclass(eq=False)
class Command:
    """One shell command's `Ticket`: its token, the calls it has running, and the media its calls returned."""

    ticket: Ticket
    response: Response
    environment: Mapping[str, str]  # the grant's address and the token, for the command's shell
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    media: list[UserContent] = field(default_factory=list)

    def watch(self, process_group: int) -> None:
        self.response.grant.groups.append(process_group)

    async def close(self, *, cancelled: bool = False) -> list[UserContent]:
        """Wait for the command's calls (its own submissions may add more meanwhile), then refuse new ones."""
        try:
            while self.tasks:
                if cancelled:
                    for task in self.tasks:
                        task.cancel()
                await asyncio.gather(*self.tasks, return_exceptions=True)
        except asyncio.CancelledError:
            for task in self.tasks:
                task.cancel()
            raise
        finally:
            self.ticket.open = False
        return self.media


class Response:
    """One response's calls, limits and workbench."""

    def __init__(self, grant: ResponseGrant, bench: Workbench, book: CallBook, clock: Clock) -> None:
        self.grant, self.bench, self.book, self.clock = grant, bench, book, clock
        self.receipts = 0
        self.cli_calls = 0
        self.waiting = 0
        self.running: dict[str, asyncio.Task[None]] = {}
        self.withdrawn: str | None = None  # why its commands may no longer use the CLI, once they may not

    @property
    def owner(self) -> Owner:
        return self.grant.owner

    async def submit(self, command: Command, submission: Submission) -> Receipt:
        """Start the call (or join the one already submitted with its id) and wait for it a while."""
        qualified, tool = find_tool(await self.bench.current_tools(), submission.tool)
        call_id = check_call_id(submission.call_id)
        wait = check_wait(submission.wait)
        request = canonical_request(qualified, submission.arguments)
        stored = self.book.store.get(call_id)
        if stored is not None:
            if stored.owner != self.owner:
                raise conflict(f"call id {call_id} is taken: leave --call-id out, or use a new UUID")
            if stored.request != request:
                raise conflict(
                    f"call id {call_id} was submitted with another tool or other arguments: to run this "
                    "call, use a new UUID; to see that one, run miniroom-agent calls get " + call_id
                )
            return await self._held(call_id, wait, submitted=True)
        if not command.ticket.open:
            raise refused(RETURNED)
        self._check_capacity()
        self.receipts += 1
        receipt = Receipt(call_id, qualified, "queued", self.clock())
        if self.bench.max_calls is not None and self.cli_calls >= self.bench.max_calls:
            self.book.open(self._over_limit(receipt), self.owner, self.grant.response_id, request)
            return self.book.receipt(call_id, self.owner)
        self.cli_calls += 1
        self.book.open(receipt, self.owner, self.grant.response_id, request)
        task = asyncio.create_task(self._run(receipt, tool, submission.arguments, command))
        command.tasks.add(task)
        task.add_done_callback(command.tasks.discard)
        self.running[call_id] = task
        return await self._held(call_id, wait, submitted=True)

    async def wait(self, call_id: str, within: float) -> Receipt:
        return await self._held(call_id, check_wait(within))

    def get(self, call_id: str) -> Receipt:
        return self.book.receipt(call_id, self.owner)

    async def end(self) -> None:
        """The response is over: calls still running (of an aborted command) are stopped."""
        self.grant.ended = True
        for task in self.running.values():
            task.cancel()
        await asyncio.gather(*self.running.values(), return_exceptions=True)

    async def _held(self, call_id: str, within: float, *, submitted: bool = False) -> Receipt:
        """The call's receipt once it ends or `within` passes: the request is held, not counted as a call.
        With too many held, a submission gets its receipt at once (its call runs); a wait is refused."""
        receipt = self.book.receipt(call_id, self.owner)
        if receipt.done or within <= 0 or (submitted and self.waiting >= MAX_HELD):
            return receipt
        if self.waiting >= MAX_HELD:
            raise too_many(
                f"this response already has {MAX_HELD} miniroom-agent requests waiting on calls, the most it "
                f"may: use --timeout 0 to read the receipt now, or let some waits end first"
            )
        self.waiting += 1
        try:
            return await self.book.wait(call_id, self.owner, within)
        finally:
            self.waiting -= 1

    def _check_capacity(self) -> None:
        if len(self.running) >= MAX_OPERATIONS:
            raise too_many(
                f"this response already runs {MAX_OPERATIONS} miniroom-agent calls at once, the most it "
                "may: wait for one to end (miniroom-agent calls wait CALL_ID) before you submit more"
            )
        if self.receipts >= MAX_RECEIPTS:
            raise too_many(
                f"this response has made {MAX_RECEIPTS} calls through miniroom-agent, the most one response "
                "keeps: finish with what you have, and go on in the next response"
            )

    def _over_limit(self, receipt: Receipt) -> Receipt:
        limit = self.bench.max_calls
        text = (
            f"Not run: this response has made {limit} calls through miniroom-agent, the most the agent's "
            "max_tool_calls_per_turn allows (calls made directly are counted apart)."
        )
        return replace(
            receipt, status="failed", outcome={"is_error": True, "text": text}, finished=self.clock()
        )

    async def _run(self, receipt: Receipt, tool: Tool, arguments: dict[str, Any], command: Command) -> None:
        running = replace(receipt, status="running")
        self.book.record(running)
        summary = f"{tool.summary(arguments)} (miniroom-agent)"
        self.bench.emit(ToolStarted(receipt.call_id, receipt.tool, arguments, summary))
        call = ToolCall(receipt.call_id, tool.name, arguments)
        try:
            result = await run_hooked(self.bench.hooks, tool, call, self.bench.context, (tool.name,))
        except asyncio.CancelledError:
            self._finish(running, ToolResult.text(CANCELLED, is_error=True), command)
            raise
        self._finish(running, result, command)

    def _finish(self, receipt: Receipt, result: ToolResult, command: Command) -> None:
        outcome, media = outcome_of(result, receipt.call_id, self.bench.workspace)
        command.media.extend(media)
        status: Status = "failed" if result.is_error else "succeeded"
        self.book.record(replace(receipt, status=status, outcome=outcome, finished=self.clock()))
        self.running.pop(receipt.call_id, None)
        self.bench.emit(ToolEnded(receipt.call_id, receipt.tool, result))
