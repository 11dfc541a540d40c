"""Who decides on calls that ask for approval, on the command line: in `run`, the `--approve` rules given
up front (no one is there to ask); in `chat`, the person at the terminal (a y/n prompt)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from miniroom.cli.common import CommandError
from miniroom.engine import Answer, ApprovalRequest, Decision, Question, chosen_option
from miniroom.hooks.deny import DenyRule, denying_rule, parse_deny_rule

APPROVE_OPTION = "--approve"


def approve_rules(texts: Sequence[str] | None) -> tuple[DenyRule, ...]:
    """The `--approve` rules as given; CommandError naming one that is not a rule."""
    rules = []
    for text in texts or ():
        try:
            rules.append(parse_deny_rule(text, "", "ask"))
        except ValueError as error:
            raise CommandError(f"{APPROVE_OPTION} {text!r}: {error}") from None
    return tuple(rules)


class ApprovedUpFront:
    """`miniroom run`: a call that asks runs when an `--approve` rule matches it, else it is refused."""

    present = False

    def __init__(self, rules: Sequence[DenyRule], cwd: Path) -> None:
        self.rules, self.cwd = tuple(rules), cwd

    async def approve(self, request: ApprovalRequest) -> Decision:
        rule = denying_rule(self.rules, request.tool, request.arguments, self.cwd)
        if rule is not None:
            return Decision(True, by=f'{APPROVE_OPTION} "{rule.text}"')
        return Decision(
            False,
            reason=f"`miniroom run` has no one to ask, and no {APPROVE_OPTION} rule on its command line "
            "accepts this call (the user can run again with, e.g., "
            f'{APPROVE_OPTION} "{request.tool}")',
        )

    async def answer(self, question: Question) -> Answer | None:
        return None


YES = frozenset({"y", "yes"})


def call_lines(request: ApprovalRequest) -> list[str]:
    """The call as a person checks it: its line as tool lines show it, and its exact arguments."""
    arguments = json.dumps(request.arguments, ensure_ascii=False, indent=2)
    why = f" — {request.reason}" if request.reason else ""
    return [
        f"⚠ approval needed ({request.rule}{why}):",
        f"  ● {request.summary}",
        *(f"    {line}" for line in arguments.splitlines()),
    ]


class Terminal:
    """`miniroom chat`: asks the person at the terminal, reading their answer without blocking the loop."""

    present = True

    def __init__(self, out: TextIO, source: TextIO = sys.stdin) -> None:
        self.out, self.source = out, source
        self._lock = asyncio.Lock()  # parallel calls ask one after another

    async def _line(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[str] = loop.create_future()
        fd = self.source.fileno()

        def read() -> None:
            if not ready.done():
                ready.set_result(self.source.readline())

        try:
            loop.add_reader(fd, read)
        except (OSError, ValueError):  # a regular file (`chat < answers.txt`) cannot be watched: it is ready
            return self.source.readline()
        try:
            return await ready
        finally:
            loop.remove_reader(fd)

    async def approve(self, request: ApprovalRequest) -> Decision:
        async with self._lock:
            self.out.write("\n".join(call_lines(request)) + "\n")
            line = (await self._line("Run it? [y/N, or n: why] ")).strip()
        answer, _, why = line.partition(":")
        if answer.strip().lower() in YES:
            return Decision(True, by="you")
        return Decision(False, by="you", reason=why.strip())

    async def answer(self, question: Question) -> Answer | None:
        async with self._lock:
            lines = [f"? {question.text}"]
            lines += [f"  {number}. {option}" for number, option in enumerate(question.options, 1)]
            self.out.write("\n".join(lines) + "\n")
            text = (await self._line("Your answer (a number or any text): ")).strip()
        return Answer(chosen_option(text, question.options), by="you")
