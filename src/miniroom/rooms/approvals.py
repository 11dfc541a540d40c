"""Approvals and questions in a room, as text (pure): the card a waiting call shows, the buttons under it,
and how a person's reply reads as a decision (`approve`, `deny`, `deny: why`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from miniroom.engine import Answer

APPROVE, DENY = "Approve", "Deny"
WAITING_MARK, APPROVED_MARK, DENIED_MARK, QUESTION_MARK = "⏸", "✅", "⛔", "❓"
_DECISION = re.compile(r"^(approve|approved|deny|denied)\b[\s:.,!-]*(.*)$", re.IGNORECASE | re.DOTALL)


def buttons(options: list[str], who: Who | None = None) -> dict[str, Any]:
    """A buttons form (`rooms.forms`): the web chat draws it as buttons, Matrix shows it as numbered text.
    A card's form names who may answer (`requester`, and `who`: how its text says so), so that the web chat
    words it for its reader and offers the buttons only to those who may press them."""
    numbered = [f"{number}. {option}" for number, option in enumerate(options, 1)]
    form: dict[str, Any] = {
        "kind": "buttons",
        "options": options,
        "text": "\n".join(["Reply with one of:", *numbered]),
    }
    if who is not None:
        form |= {"requester": who.requester, "who": who.text}
    return form


@dataclass(frozen=True, slots=True)
class Who:
    """Who may answer a card: the person whose message started the turn (their display name if any), or a
    room admin."""

    requester: str
    name: str | None = None

    @property
    def text(self) -> str:
        """`Ann (@ann:example.org) or a room admin`: the user id stays, as Matrix clients link it; a display
        name that only repeats the id's name is left out."""
        if not self.requester:
            return "a room admin"
        localpart = self.requester.removeprefix("@").partition(":")[0]
        named = self.name and self.name.casefold() != localpart.casefold()
        return (
            f"{self.name} ({self.requester}) or a room admin"
            if named
            else f"{self.requester} or a room admin"
        )


def approval_buttons(who: Who) -> dict[str, Any]:
    return buttons([APPROVE, DENY], who)


def approval_card(summary: str, rule: str, reason: str, who: Who) -> str:
    """The lines above the buttons: which call waits, why, and who may decide."""
    why = f": {reason}" if reason else ""
    return (
        f"{WAITING_MARK} Waiting for approval to run `{summary}` ({rule}{why}). "
        f"{who.text} may answer approve, or deny with a reason (`deny: not now`)."
    )


def refused_line(who: Who) -> str:
    """The notice an approve or deny from someone who may not decide gets: it did not count."""
    return f"Only {who.text} may answer the card waiting for approval; this answer did not count."


def decision_line(summary: str, approved: bool, by: str, reason: str) -> str:
    if approved:
        return f"{APPROVED_MARK} {by or 'Someone'} approved `{summary}`"
    return f"{DENIED_MARK} Not run: `{summary}` — " + (
        f"denied by {by}" + (f": {reason}" if reason else "") if by else reason or "denied"
    )


def stopped_line(summary: str) -> str:
    return (
        f"{WAITING_MARK} miniroom stopped while `{summary}` waited for approval; it waits again after the "
        "restart"
    )


def question_card(text: str, who: Who) -> str:
    return f"{QUESTION_MARK} {text}\n({who.text} may answer: pick an option or write any answer)"


def answered_line(text: str, answer: Answer | None) -> str:
    if answer is None:
        return f"{QUESTION_MARK} {text} — not answered"
    return f"{QUESTION_MARK} {text} — {answer.by} answered: {answer.text}"


def _without_reply_fallback(body: str) -> str:
    """A Matrix reply's body without the quoted lines of the message it answers."""
    lines = body.split("\n")
    while lines and lines[0].startswith(">"):
        lines.pop(0)
    return "\n".join(lines).strip()


def read_decision(body: str) -> tuple[bool, str] | None:
    """`(approved, reason)` when `body` is a decision (`approve`, `Deny`, `deny: too risky`); else None."""
    match = _DECISION.match(_without_reply_fallback(body))
    if match is None:
        return None
    return match.group(1).lower().startswith("approve"), match.group(2).strip()


def read_answer(body: str) -> str:
    """A person's answer to a question, as they wrote it (a reply's quote left out)."""
    return _without_reply_fallback(body)
