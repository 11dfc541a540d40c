"""`miniroom run`: one prompt, the final answer on stdout (or JSON events with --json)."""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import os
import signal
import sys

from miniroom.agent import cli_turn
from miniroom.cli.agent_access import LocalCli, local_cli, local_scope
from miniroom.cli.approvals import ApprovedUpFront, approve_rules
from miniroom.cli.common import CommandError, agent_from_args, fail
from miniroom.cli.process import stop_signals_call
from miniroom.cli.render import (
    error_record,
    event_record,
    notice_line,
    recreation_line,
    recreation_record,
    session_record,
)
from miniroom.engine import Agent, AgentEvent, TurnEnded
from miniroom.llm import ErrorKind
from miniroom.tools import make_non_dumpable


def _prompt_text(parts: list[str]) -> str:
    text = sys.stdin.read() if parts == ["-"] else " ".join(parts)
    if not text.strip():
        raise CommandError("The prompt is empty: say what the agent should do.")
    return text


def _print_json(record: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    sys.stdout.flush()


class _JsonOutput:
    """Prints each event as a JSON line; when the reader goes away (`| head -1`), stops the turn instead."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.closed = False

    def __call__(self, event: AgentEvent) -> None:
        if self.closed:
            return
        try:
            record = event_record(event)
            if record is not None:
                _print_json(record)
            if isinstance(event, TurnEnded) and event.error is not None:
                _print_json(error_record(event))
        except BrokenPipeError:
            # Nobody reads the events any more: abort the turn (its tools die with it) and end quietly.
            self.closed = True
            self.agent.abort()


def _notice_listener(event: AgentEvent) -> None:
    line = notice_line(event)
    if line is not None:
        print(line, file=sys.stderr, flush=True)


async def _run(agent: Agent, prompt: str, local: LocalCli) -> TurnEnded:
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.abort)
    try:
        with stop_signals_call(loop, agent.abort):
            async with cli_turn(local, agent, local_scope(agent)) as turn:
                return await agent.prompt(prompt, turn)
    finally:
        await local.close()
        await agent.aclose()


def run_command(args: argparse.Namespace) -> int:
    make_non_dumpable()
    prompt = _prompt_text(args.prompt)
    approved = approve_rules(args.approve)
    agent = agent_from_args(args)
    agent.config.person = ApprovedUpFront(approved, agent.config.cwd)
    output = _JsonOutput(agent)
    if args.json:
        _print_json(session_record(agent))
        if (recreated := recreation_record(agent.session)) is not None:
            _print_json(recreated)
        agent.subscribe(output)
    else:
        if (line := recreation_line(agent.session)) is not None:
            print(line, file=sys.stderr, flush=True)
        agent.subscribe(_notice_listener)
    ended = asyncio.run(_run(agent, prompt, local_cli(os.environ)))
    if output.closed:
        raise BrokenPipeError(errno.EPIPE, "the reader of standard output went away")  # see cli.entry
    if ended.error is not None:
        model = "" if ended.error.kind is ErrorKind.BLOCKED else f" (model {agent.config.model.ref})"
        return fail(f"{ended.error}{model}", code=1)
    if ended.aborted:
        return fail("aborted.", code=130)
    if not args.json:
        print(ended.message.text)
    return 0
