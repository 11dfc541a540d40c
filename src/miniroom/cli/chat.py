"""`miniroom chat`: an interactive session; text streams, tool calls show as one line, Ctrl-C aborts a turn."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import threading
from typing import TextIO

from miniroom.cli.common import CommandError, agent_from_args, fail
from miniroom.cli.render import first_line, usage_line
from miniroom.engine import events as ev
from miniroom.engine.agent import Agent
from miniroom.llm.messages import Usage

HELP = "Type a message and press Enter. /help shows this, /exit (or Ctrl-D) quits; Ctrl-C stops a running turn."


class ChatView:
    """Prints events as a person wants to read them."""

    def __init__(self, out: TextIO, session_usage: Usage) -> None:
        self.out = out
        self.session_usage = session_usage  # the agent's live running total
        self._mid_line = False

    def _line(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.write(text + "\n")
        self.out.flush()

    def __call__(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self._mid_line = not event.text.endswith("\n")
        elif isinstance(event, ev.ToolStarted):
            self._line(f"● {first_line(event.summary)}")
        elif isinstance(event, ev.ToolEnded) and event.result.is_error:
            text = "".join(getattr(block, "text", "") for block in event.result.content)
            self._line(f"  ✗ {first_line(text)}")
        elif isinstance(event, ev.TurnEnded):
            if event.error is not None:
                self._line(f"✗ {event.error}")
            elif event.aborted:
                self._line("⏹ aborted")
            self._line(usage_line(event.usage, self.session_usage))


def _start_reader(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
    """Read stdin in a daemon thread, so the event loop stays free to stream and to handle Ctrl-C."""

    def read() -> None:
        while True:
            try:
                line: str | None = input()
            except (EOFError, KeyboardInterrupt):
                line = None
            loop.call_soon_threadsafe(lines.put_nowait, line)
            if line is None:
                return

    threading.Thread(target=read, name="chat-input", daemon=True).start()


async def _chat(agent: Agent) -> None:
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    _start_reader(loop, lines)
    view = ChatView(sys.stdout, agent.session_usage)
    agent.subscribe(view)
    print(f"miniroom chat · {agent.config.model.ref} · session {agent.session.id[:8]} · /help for help")
    while True:
        sys.stdout.write("> ")
        sys.stdout.flush()
        line = await lines.get()
        if line is None or line.strip() in ("/exit", "/quit"):
            print()
            return
        if line.strip() == "/help":
            print(HELP)
            continue
        if not line.strip():
            continue
        loop.add_signal_handler(signal.SIGINT, agent.abort)
        try:
            await agent.prompt(line)
        finally:
            loop.remove_signal_handler(signal.SIGINT)


def chat_command(args: argparse.Namespace) -> int:
    try:
        agent = agent_from_args(args)
    except CommandError as error:
        return fail(str(error))
    try:
        asyncio.run(_chat(agent))
    except KeyboardInterrupt:
        print()
    finally:
        agent.session.close()
    return 0
