"""What an agent is told at its turn, as a pure function of the conversation's events."""

from __future__ import annotations

from typing import Any

from miniroom.rooms.turn_context import MAX_BYTES, turn_context, unheard
from tests.rooms.factory import ALICE, BOB, HELPER, in_thread, message

NAMES = {ALICE: "Alice", BOB: "Bob", HELPER: "Helper"}


def reply(body: str, event_id: str, answers: str, sender: str = HELPER) -> dict[str, Any]:
    """An agent's reply in the thread of $root, pointing at the message it answers."""
    content = in_thread()
    content["m.relates_to"]["m.in_reply_to"] = {"event_id": answers}
    return message(body, sender=sender, event_id=event_id, **content)


def thread_after_an_answer() -> list[dict[str, Any]]:
    return [
        message("which port does the api use?", event_id="$root"),
        message("and the host?", sender=ALICE, event_id="$late", **in_thread()),
        reply("It is in config.yaml.", "$reply", answers="$root"),
        message("the port is 9000", sender=BOB, event_id="$bob", **in_thread()),
        message("@Helper what port did bob say?", event_id="$ask", **in_thread()),
    ]


def test_the_turn_carries_what_was_said_since_the_answered_message_by_whom() -> None:
    events = thread_after_an_answer()
    told = turn_context(events, HELPER, events[-1], names=NAMES)
    assert told == "Alice: and the host?\n\nBob: the port is 9000\n\nAlice: @Helper what port did bob say?", (
        "the message sent while the agent was answering is kept; its reply and what it answered are not"
    )


def test_the_ledger_marks_what_was_answered_where_a_reply_points_at_nothing() -> None:
    events = [
        message("hello", event_id="$one"),
        message("hi there", sender=HELPER, event_id="$reply"),
        message("the port is 9000", sender=BOB, event_id="$bob"),
        message("what port?", event_id="$ask"),
    ]
    answered = {"$one"}.__contains__
    told = turn_context(events, HELPER, events[-1], names=NAMES, answered=answered)
    assert told == "Bob: the port is 9000\n\nAlice: what port?"
    # Without the ledger, the agent's own newest message marks where its session ends.
    assert turn_context(events, HELPER, events[-1], names=NAMES) == told


def test_a_new_conversation_is_told_from_its_start_and_messages_after_the_asking_one_wait() -> None:
    events = thread_after_an_answer()[:2]
    events += [message("later", sender=BOB, event_id="$after", **in_thread())]
    told = turn_context(events, HELPER, events[1], names=NAMES)
    assert told == "Alice: which port does the api use?\n\nAlice: and the host?"


def test_a_message_missing_from_the_events_ends_them() -> None:
    events = thread_after_an_answer()[:4]
    asked = message("@Helper and bob said?", event_id="$plain")
    assert [event["event_id"] for event in unheard(events, HELPER, asked, lambda _: False)] == [
        "$late",
        "$bob",
        "$plain",
    ]


def test_edits_show_as_edited_and_unknown_senders_by_their_localpart() -> None:
    bob = message("the port is 8000", sender=BOB, event_id="$bob")
    bob["unsigned"] = {
        "m.relations": {
            "m.replace": {"sender": BOB, "content": {"m.new_content": {"msgtype": "m.text", "body": "9000"}}}
        }
    }
    asked = message("which?", sender="@carol:example.org", event_id="$ask")
    assert turn_context([bob, asked], HELPER, asked, names=NAMES) == "Bob: 9000\n\ncarol: which?"


def test_only_the_newest_fifty_messages_are_told_with_a_count_of_the_rest() -> None:
    events = [message(f"message {n}", sender=BOB, event_id=f"${n}") for n in range(1, 61)]
    told = turn_context(events, HELPER, events[-1], names=NAMES).split("\n\n")
    assert told[0] == "(10 earlier messages left out)"
    assert told[1:] == [f"Bob: message {n}" for n in range(11, 61)]


def test_past_24_kb_the_oldest_go_first_but_never_the_asking_message() -> None:
    big = "x" * 10_000
    events = [message(f"{n} {big}", sender=BOB, event_id=f"${n}") for n in range(1, 5)]
    told = turn_context(events, HELPER, events[-1], names=NAMES)
    assert told.startswith("(2 earlier messages left out)\n\nBob: 3 ")
    assert len(told.encode()) <= MAX_BYTES + 100
    huge = message("y" * 30_000, event_id="$huge")
    assert turn_context([*events, huge], HELPER, huge, names=NAMES) == (
        f"(4 earlier messages left out)\n\nAlice: {'y' * 30_000}"
    )


def test_a_history_read_only_in_part_says_more_were_left_out() -> None:
    events = [message(f"message {n}", sender=BOB, event_id=f"${n}") for n in range(1, 4)]
    told = turn_context(events, HELPER, events[-1], names=NAMES, earlier_unread=True)
    assert told.startswith("(earlier messages left out)\n\nBob: message 1")
    events.insert(1, message("hi", sender=HELPER, event_id="$mine"))
    told = turn_context(events, HELPER, events[-1], names=NAMES, earlier_unread=True)
    assert told == "Bob: message 2\n\nBob: message 3", "the agent's last word was read: nothing is missing"
