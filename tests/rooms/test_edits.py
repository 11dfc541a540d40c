"""Message edits: the agent regenerates its reply for the newest edit of a person's message."""

from __future__ import annotations

from typing import Any

import pytest

from miniroom.rooms.decide import Regeneration, handoff_target, regenerate_on_edit
from miniroom.rooms.events import parse_event
from tests.rooms.factory import ALICE, BOB, CODER, HELPER, edit, message, policy

HISTORY: dict[str, dict[str, Any]] = {
    "$q": message("what is 2+2?", event_id="$q"),
    "$unanswered": message("hm", event_id="$unanswered"),
    "$agent_msg": message("draft", sender=HELPER, event_id="$agent_msg"),
}
REPLIES = {"$q": {"helper": "$reply", "coder": "$reply2"}, "$agent_msg": {"coder": "$r3"}}


def _regenerate(raw: dict[str, Any], newest: dict[str, Any] | None = None) -> tuple[Regeneration, ...]:
    return regenerate_on_edit(
        parse_event(raw),
        policy=policy(),
        get_event=HISTORY.get,
        agent_replies=lambda event_id: REPLIES.get(event_id, {}),
        newest_edit=parse_event(newest) if newest else None,
    )


def test_an_edit_regenerates_every_agent_reply_with_the_new_content() -> None:
    assert _regenerate(edit("$q", "what is 2+3?")) == (
        Regeneration("helper", "$reply", "$q", "what is 2+3?", None),
        Regeneration("coder", "$reply2", "$q", "what is 2+3?", None),
    )


CASES: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {
    "edits_by_agents_never_regenerate": (edit("$agent_msg", "better draft", sender=HELPER), None),
    "edit_of_an_unknown_event": (edit("$missing", "x"), None),
    "edit_of_a_message_without_agent_reply": (edit("$unanswered", "x"), None),
    "edit_by_someone_other_than_the_author_is_invalid": (edit("$q", "x", sender=BOB), None),
    "an_older_edit_arriving_late_loses_to_the_newest": (
        edit("$q", "old", ts=2_000),
        edit("$q", "new", event_id="$e2", ts=3_000),
    ),
    "not_an_edit": (message("x"), None),
}


@pytest.mark.parametrize(("raw", "newest"), CASES.values(), ids=CASES.keys())
def test_no_regeneration(raw: dict[str, Any], newest: dict[str, Any] | None) -> None:
    assert _regenerate(raw, newest) == ()


def test_the_newest_edit_wins() -> None:
    newest = edit("$q", "new", event_id="$e2", ts=3_000)
    assert _regenerate(newest, newest)[0].body == "new"
    assert _regenerate(edit("$q", "newer", event_id="$e3", ts=4_000), newest)[0].body == "newer"


def test_newest_edit_of_another_message_does_not_interfere() -> None:
    assert _regenerate(edit("$q", "x", ts=1), edit("$other", "y", ts=9))[0].body == "x"


def test_handoff_of_a_finished_streamed_reply_reads_the_final_edit() -> None:
    final = parse_event(edit("$stream", "All done. Next: @coder", sender=HELPER))
    assert handoff_target(final, policy()) == "coder"


@pytest.mark.parametrize(
    ("sender", "body"),
    [(ALICE, "over to @coder"), (HELPER, "over to @helper"), (CODER, "thanks, @nobody")],
    ids=["people_do_not_hand_off", "an_agent_cannot_hand_off_to_itself", "unknown_name"],
)
def test_no_handoff(sender: str, body: str) -> None:
    assert handoff_target(parse_event(message(body, sender=sender)), policy()) is None
