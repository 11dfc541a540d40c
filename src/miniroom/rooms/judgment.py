"""What a judgment is: its answer, why one failed, what gets asked in which order, and the outcome logged."""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass


class Verdict(enum.Enum):
    """The judge's answer: for participation, reply (YES) or stay quiet; mid-turn, continue or wrap up."""

    YES = "yes"
    NO = "no"


class Failure(enum.Enum):
    """Why a judgment gave no verdict: each falls back (participation) or wraps up (mid-turn)."""

    MISSING_CREDENTIALS = "missing_credentials"
    LIMIT_FULL = "limit_full"
    TIMEOUT = "timeout"
    PROVIDER_ERROR = "provider_error"
    MALFORMED = "malformed_output"
    ABSTAINED = "abstained"
    NATIVE_TOOLS = "native_tools"  # the reply model's provider adds tools a judgment cannot turn off


class Backend(enum.Enum):
    LLM = "llm"
    TYPESAFE = "typesafe"
    REPLY_MODEL = "reply_model"  # the agent's own model, asked with tools disabled


class Skip(enum.Enum):
    """Why a participation judgment skips its backend (the reply model decides instead)."""

    MEDIA = "media"
    ATTACHMENT = "attachment_reference"
    SECRET = "detected_secret"
    TOO_LARGE = "input_too_large"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One judgment as logged: never the request's text, never a credential."""

    backend: Backend
    model: str
    verdict: Verdict | None
    failure: Failure | None = None
    seconds: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    input_bytes: int = 0
    probability: float | None = None  # TypeSafe: P(yes)
    threshold: float | None = None
    detail: str = ""  # what went wrong, for a person: an HTTP status, a missing variable


ANSWER_WORDS = {"yes": Verdict.YES, "no": Verdict.NO}
ABSTAIN_WORDS = frozenset({"unsure", "unknown", "maybe"})
_FIRST_WORD = re.compile(r"[\s*_`\"'>#-]*([A-Za-z]+)\b[\s.!*_`\"']*")


def parse_answer(text: str) -> Verdict | Failure:
    """A model's one-word answer: yes or no; unsure abstains; anything else is malformed."""
    match = _FIRST_WORD.match(text)
    word = match.group(1).casefold() if match else ""
    if word in ANSWER_WORDS and match is not None and match.end() == len(text):
        return ANSWER_WORDS[word]
    if word in ABSTAIN_WORDS:
        return Failure.ABSTAINED
    return Failure.MALFORMED


def probability_verdict(probability: float, threshold: float) -> Verdict:
    """TypeSafe: yes at or above the threshold."""
    return Verdict.YES if probability >= threshold else Verdict.NO


def participation_steps(backend: Backend | None, skip: Skip | None) -> tuple[Backend, ...]:
    """Who is asked, in order, until one gives a verdict: the configured backend unless the context is
    skipped, then the agent's reply model."""
    if backend is None or skip is not None:
        return (Backend.REPLY_MODEL,)
    return (backend, Backend.REPLY_MODEL)


def mid_turn_steps(backend: Backend | None) -> tuple[Backend, ...]:
    """Mid-turn asks one judge: the configured backend, else the reply model; no verdict wraps up."""
    return (backend or Backend.REPLY_MODEL,)


def settle(outcomes: Sequence[Outcome]) -> Verdict | None:
    """The first verdict given; None when every judge failed."""
    return next((outcome.verdict for outcome in outcomes if outcome.verdict is not None), None)
