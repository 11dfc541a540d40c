"""How a person's reply in a room reads as a decision on a waiting call (pure)."""

from __future__ import annotations

import pytest

from miniroom.rooms.approvals import read_answer, read_decision


@pytest.mark.parametrize(
    ("body", "decision"),
    [
        ("approve", (True, "")),
        ("Approve", (True, "")),
        ("approved!", (True, "")),
        ("deny", (False, "")),
        ("Deny: not on a Friday", (False, "not on a Friday")),
        ("denied - too risky", (False, "too risky")),
        ("> <@bob:x> Waiting for approval\n\napprove", (True, "")),  # a Matrix reply's quote
        ("approvement", None),
        ("I approve", None),
        ("please deny it", None),
        ("", None),
    ],
)
def test_a_reply_reads_as_a_decision_only_when_it_starts_with_one(
    body: str, decision: tuple[bool, str] | None
) -> None:
    assert read_decision(body) == decision


def test_an_answer_keeps_the_persons_words_without_the_quote() -> None:
    assert read_answer("> <@bob:x> Which one?\n\nthe blue one") == "the blue one"
