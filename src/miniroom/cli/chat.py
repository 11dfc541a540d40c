"""`miniroom chat`: text streams, each tool call is one line, Ctrl-C aborts a turn."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from typing import TextIO

from miniroom.agent import SubagentStatus, cli_turn, offer_person, progress_line
from miniroom.cli.agent_access import LocalCli, local_cli, local_scope
from miniroom.cli.approvals import Terminal
from miniroom.cli.chat_commands import ChatAction, run_chat_command
from miniroom.cli.common import agent_from_args
from miniroom.cli.process import STOP_SIGNALS, stop_signals_call
from miniroom.cli.render import first_line, notice_line, recreation_line, tool_text, usage_line
from miniroom.engine import (
    Agent,
    AgentEvent,
    TextDelta,
    ThinkingDelta,
    ToolEnded,
    ToolStarted,
    ToolUpdated,
    TurnEnded,
)
from miniroom.llm import Usage
from miniroom.tools import latest_todos, make_non_dumpable, render_todos


class ChatView:
    """Prints events as a person wants to read them."""

    def __init__(self, out: TextIO, session_usage: Usage) -> None:
        self.out = out
        self.session_usage = session_usage  # the agent's live running total
        self._mid_line = False
        self._thinking = False  # a "thinking" line is shown once per stretch of reasoning
        self._subagents: dict[str, str | None] = {}  # call id -> the subagent tool last shown

    def _line(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.write(text + "\n")
        self.out.flush()

    def _subagent(self, event: ToolUpdated) -> None:
        """A line when a subagent starts, turns to another tool, and ends: what it does and its tokens."""
        status = SubagentStatus.of(event.details)
        if status is None or status.phase == "queued":
            return
        shown = self._subagents.get(event.call_id, "")
        if status.phase == "progress" and status.tool in (None, shown):
            return
        self._subagents[event.call_id] = status.tool
        line = f"  ↳ {progress_line(status)}"
        if status.phase == "end" and status.outcome:
            line += f" — {first_line(status.outcome, 80)}"
        self._line(line)

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, ToolUpdated):
            self._subagent(event)
            return
        if isinstance(event, ThinkingDelta):
            if not self._thinking:
                self._line("💭 thinking…")
            self._thinking = True
            return
        self._thinking = False
        if isinstance(event, TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self._mid_line = not event.text.endswith("\n")
        elif isinstance(event, ToolStarted):
            self._line(f"● {first_line(event.summary)}")
        elif isinstance(event, ToolEnded) and "todos" in event.result.details and not event.result.is_error:
            for line in render_todos(event.result.details["todos"]).splitlines():
                self._line(f"  {line}")
        elif isinstance(event, ToolEnded) and event.result.is_error:
            self._line(f"  ✗ {first_line(tool_text(event.result))}")
        elif (notice := notice_line(event)) is not None:
            self._line(notice)
        elif isinstance(event, TurnEnded):
            if event.error is not None:
                self._line(f"✗ {event.error}")
            elif event.aborted:
                self._line("⏹ aborted")
            self._line(usage_line(event.usage, self.session_usage))


class ChatStopped(Exception):
    """SIGTERM or SIGHUP (a closed terminal): the chat ends, its running turn aborted."""


def _stop_at_prompt(signum: int, frame: object) -> None:
    raise ChatStopped


async def _turn(agent: Agent, text: str, local: LocalCli) -> None:
    """One turn, with Ctrl-C bound to abort while it runs; SIGTERM or SIGHUP aborts it and ends the chat."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.abort)
    try:
        with stop_signals_call(loop, agent.abort) as stop:
            async with cli_turn(local, agent, local_scope(agent)) as turn:
                await agent.prompt(text, turn)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    if stop.signum is not None:
        raise ChatStopped


def _enable_line_editing() -> None:
    """Arrow keys and history at the prompt, where the platform has GNU readline."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (importing it is what turns it on for input())


def _read_line() -> str | None:
    try:
        return input("> ")
    except EOFError:
        return None
    except KeyboardInterrupt:  # Ctrl-C at the prompt clears the line, like a shell
        print()
        return ""


def chat_loop(agent: Agent, runner: asyncio.Runner, local: LocalCli) -> None:
    _enable_line_editing()
    view = ChatView(sys.stdout, agent.session_usage)
    agent.subscribe(view)
    print(f"miniroom chat · {agent.config.model.ref} · session {agent.session.id[:8]} · /help for help")
    if (recreated := recreation_line(agent.session)) is not None:
        print(recreated)
    todos = latest_todos(agent.messages)
    if todos:  # a resumed chat shows where its task list stands
        print(render_todos(todos))
    while (line := _read_line()) is not None:
        text = line.strip()
        if not text:
            continue
        if text.startswith("/"):
            if run_chat_command(agent, text, runner, os.environ) is ChatAction.EXIT:
                return
            continue
        runner.run(_turn(agent, line, local))
    print()


def chat_command(args: argparse.Namespace) -> int:
    make_non_dumpable()
    agent = agent_from_args(args)
    offer_person(agent, Terminal(sys.stdout))
    for signum in STOP_SIGNALS:
        signal.signal(signum, _stop_at_prompt)
    local = local_cli(os.environ)
    try:
        with asyncio.Runner() as runner:
            try:
                chat_loop(agent, runner, local)
            except ChatStopped:
                return 130
            finally:
                runner.run(local.close())
                runner.run(agent.aclose())
    finally:
        agent.session.close()
    return 0
