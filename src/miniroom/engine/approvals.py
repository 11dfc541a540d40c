"""People in the loop: a call that needs approval waits for a person's decision, and a question waits for
their answer. The loop knows nothing of who the person is or how they are asked; the UI gives a `Person`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class ApprovalRequest:
    """The exact call a person decides on, as tool cards show it, and why it asks (`rule`: the rule as
    written in hooks.yml, or the hook that asked)."""

    call_id: str
    tool: str
    arguments: dict[str, Any]
    summary: str
    rule: str
    reason: str = ""


@dataclass(frozen=True)
class Decision:
    """`by`: who decided, as people know them; `reason`: why, in their words (may be empty)."""

    approved: bool
    by: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Question:
    """A question the model asks the person, with up to four options; free text is always welcome."""

    call_id: str
    text: str
    options: Sequence[str] = ()


@dataclass(frozen=True)
class Answer:
    """`text`: the answer; `by`: who gave it."""

    text: str
    by: str = ""


class Person(Protocol):
    """Who can decide on a call or answer a question in this conversation; `present` False: no one can."""

    @property
    def present(self) -> bool: ...

    async def approve(self, request: ApprovalRequest) -> Decision: ...

    async def answer(self, question: Question) -> Answer | None:
        """Their answer, or None when no one can answer here."""


class NoOne:
    """No one to ask (a subagent, an API request): every call that needs approval is refused."""

    present = False

    def __init__(self, where: str = "here") -> None:
        self.where = where

    async def approve(self, request: ApprovalRequest) -> Decision:
        return Decision(False, reason=f"no one can approve calls {self.where}")

    async def answer(self, question: Question) -> Answer | None:
        return None


NO_ONE: Person = NoOne()


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute" + ("" if minutes == 1 else "s")
    return f"{seconds:g} second" + ("" if seconds == 1 else "s")


async def decide(person: Person, request: ApprovalRequest, seconds: float) -> Decision:
    """The person's decision; no decision within `seconds` is a denial."""
    try:
        return await asyncio.wait_for(person.approve(request), seconds)
    except TimeoutError:
        return Decision(False, reason=f"no one decided within {_duration(seconds)}")
    except Exception as error:  # asking failed (the terminal went away): no approval, and the turn goes on
        return Decision(False, reason=f"asking failed ({type(error).__name__}: {error})")


def denial_text(request: ApprovalRequest, decision: Decision) -> str:
    """What the model reads when a call it made was not approved: who denied it, and why."""
    asked = f"The call needed approval ({request.rule}{': ' + request.reason if request.reason else ''})"
    who = f"{decision.by} denied it" if decision.by else "it was denied"
    why = f": {decision.reason}" if decision.reason else ""
    return (
        f"{asked} and {who}{why}. The call was not run. Do not try to get around the decision; do the task "
        "another way, or ask the user."
    )


async def timed_answer(person: Person, question: Question, seconds: float) -> Answer | None:
    """The person's answer; None when no one answered within `seconds`."""
    try:
        return await asyncio.wait_for(person.answer(question), seconds)
    except TimeoutError:
        return None
    except Exception:  # asking failed: as no answer
        return None


def chosen_option(text: str, options: Sequence[str]) -> str:
    """`text`, or the option it names by number (`2` for the second)."""
    stripped = text.strip()
    if stripped.isdigit() and 1 <= int(stripped) <= len(options):
        return options[int(stripped) - 1]
    return text
