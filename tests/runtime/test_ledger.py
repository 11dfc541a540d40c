"""The turn ledger on its own: pending events, turns in flight and answered turns, across reloads."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.ledger import InFlight, Turn, TurnLedger, transaction_id

TURN = Turn("helper", Conversation("!room:miniroom.local", "$root"), "$question", "You: hi")
OTHER = Turn("reviewer", Conversation("!room:miniroom.local", "$root"), "$question", "You: hi")


def test_a_turn_is_in_flight_until_complete_and_only_then_answered_even_after_a_reload(
    tmp_path: Path,
) -> None:
    ledger = TurnLedger(tmp_path)
    ledger.begin(TURN, "leaf-1")
    ledger.posted(TURN, "$reply")
    assert not ledger.answered("$question", "helper")
    assert ledger.taken("$question", "helper")
    reloaded = TurnLedger(tmp_path)  # a crash here: the reply is cut off, not answered
    assert reloaded.unfinished() == [InFlight(TURN, "leaf-1", "$reply")]
    assert not reloaded.answered("$question")
    reloaded.complete(TURN, "$reply")
    again = TurnLedger(tmp_path)
    assert again.unfinished() == []
    assert again.replies("$question") == {"helper": "$reply"}


def test_the_images_a_turn_is_shown_survive_a_reload(tmp_path: Path) -> None:
    seeing = Turn("helper", TURN.conversation, "$shot", "You: [image: a.png]", images=("uploads/k/a.png",))
    TurnLedger(tmp_path).begin(seeing, "leaf")
    [record] = TurnLedger(tmp_path).unfinished()
    assert record.turn == seeing


def test_a_turn_begun_again_keeps_where_its_first_run_started(tmp_path: Path) -> None:
    ledger = TurnLedger(tmp_path)
    ledger.begin(TURN, "before-the-prompt")
    rerun = TurnLedger(tmp_path).begin(TURN, "after-the-stored-prompt")
    assert rerun.session_leaf == "before-the-prompt"


def test_an_event_stays_pending_until_every_turn_it_started_is_over(tmp_path: Path) -> None:
    ledger = TurnLedger(tmp_path)
    ledger.receive("$question", {"event_id": "$question"})
    assert ledger.claim(TURN)
    assert ledger.claim(OTHER)
    assert not ledger.claim(TURN), "a turn queued twice in one process"
    ledger.release("$question")  # handled, but its turns still run
    ledger.unclaim(TURN)
    assert TurnLedger(tmp_path).pending_events() == [{"event_id": "$question"}]
    ledger.unclaim(OTHER)
    assert TurnLedger(tmp_path).pending_events() == []


def test_a_malformed_record_in_flight_is_left_out_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    TurnLedger(tmp_path).begin(TURN, "leaf")
    path = tmp_path / "in_flight.json"
    records = json.loads(path.read_text())
    records["$question"]["reviewer"] = {"turn": {"agent": 5}}
    path.write_text(json.dumps(records))
    with caplog.at_level(logging.ERROR):
        assert TurnLedger(tmp_path).unfinished() == [InFlight(TURN, "leaf")]
    assert f"{path}: the record of reviewer for $question is malformed" in caplog.text


def test_transaction_ids_are_the_same_for_the_same_reply_and_differ_otherwise() -> None:
    first = transaction_id("$question", "helper", "reply")
    assert first == transaction_id("$question", "helper", "reply")
    assert len({first, transaction_id("$question", "reviewer", "reply")}) == 2
    assert len({first, transaction_id("$question", "helper", "command")}) == 2
    assert first.isascii()
    assert "/" not in first
