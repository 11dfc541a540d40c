"""Judgments as pure tables: answers parsed, who is asked in which order, what a judge sees and when the
backend is skipped (participation) or the judge is (mid-turn)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from miniroom.rooms.judge_context import (
    MAX_JUDGE_BYTES,
    participation_request,
    participation_skip,
    shown_content,
)
from miniroom.rooms.judgment import (
    Backend,
    Failure,
    Outcome,
    Skip,
    Verdict,
    mid_turn_steps,
    parse_answer,
    participation_steps,
    probability_verdict,
    settle,
)
from miniroom.rooms.mid_turn import MidTurnInput, MidTurnSkip, Queued, mid_turn_request
from miniroom.rooms.policy import AgentPolicy, RoomPolicy
from tests.rooms.factory import ALICE, BOB, BRIDGE, CODER, HELPER, in_thread, message

ALICE_TG = "@alice_tg:example.org"
POLICY = RoomPolicy(
    (AgentPolicy("helper", HELPER, "Helper"), AgentPolicy("coder", CODER, "Coder")),
    bot_accounts=frozenset({BRIDGE}),
    human_aliases={ALICE_TG: ALICE},
)

ANSWERS = {
    "yes": ("yes", Verdict.YES),
    "capitalised_with_period": ("Yes.", Verdict.YES),
    "bold": ("**no**", Verdict.NO),
    "trailing_newline": ("no\n", Verdict.NO),
    "unsure_abstains": ("unsure", Failure.ABSTAINED),
    "maybe_abstains": ("Maybe.", Failure.ABSTAINED),
    "a_sentence_is_malformed": ("yes, because they asked", Failure.MALFORMED),
    "another_word_is_malformed": ("reply", Failure.MALFORMED),
    "empty_is_malformed": ("", Failure.MALFORMED),
}


@pytest.mark.parametrize(("text", "expected"), ANSWERS.values(), ids=ANSWERS.keys())
def test_a_models_answer_is_one_word(text: str, expected: Verdict | Failure) -> None:
    assert parse_answer(text) == expected


@pytest.mark.parametrize(
    ("probability", "threshold", "expected"),
    [(0.8, 0.8, Verdict.YES), (0.79, 0.8, Verdict.NO), (0.0, 0.0, Verdict.YES), (1.0, 1.0, Verdict.YES)],
)
def test_typesafe_approves_at_or_above_the_threshold(
    probability: float, threshold: float, expected: Verdict
) -> None:
    assert probability_verdict(probability, threshold) == expected


STEPS = {
    "no_judgment_the_reply_model_decides": (None, None, (Backend.REPLY_MODEL,)),
    "llm_then_the_reply_model": (Backend.LLM, None, (Backend.LLM, Backend.REPLY_MODEL)),
    "typesafe_then_the_reply_model": (Backend.TYPESAFE, None, (Backend.TYPESAFE, Backend.REPLY_MODEL)),
    **{f"skipped_for_{skip.value}": (Backend.TYPESAFE, skip, (Backend.REPLY_MODEL,)) for skip in Skip},
}


@pytest.mark.parametrize(("backend", "skip", "steps"), STEPS.values(), ids=STEPS.keys())
def test_participation_asks_the_backend_unless_skipped_then_the_reply_model(
    backend: Backend | None, skip: Skip | None, steps: tuple[Backend, ...]
) -> None:
    assert participation_steps(backend, skip) == steps


def test_mid_turn_asks_one_judge() -> None:
    assert mid_turn_steps(Backend.LLM) == (Backend.LLM,)
    assert mid_turn_steps(None) == (Backend.REPLY_MODEL,)


def _failed(failure: Failure) -> Outcome:
    return Outcome(Backend.LLM, "fast", None, failure)


FALLBACKS = {
    **{f"{failure.value}_falls_back": ([failure], Verdict.NO, Verdict.NO) for failure in Failure},
    "the_backends_verdict_stands": ([], Verdict.YES, Verdict.YES),
    "both_failing_stays_quiet": ([Failure.TIMEOUT], None, None),
}


@pytest.mark.parametrize(("failures", "reply_model", "expected"), FALLBACKS.values(), ids=FALLBACKS.keys())
def test_a_failed_backend_falls_back_to_the_reply_model_and_quiet_when_that_fails_too(
    failures: list[Failure], reply_model: Verdict | None, expected: Verdict | None
) -> None:
    outcomes = [_failed(failure) for failure in failures]
    last = Outcome(Backend.REPLY_MODEL, "own", reply_model, None if reply_model else Failure.PROVIDER_ERROR)
    assert settle([*outcomes, last]) == expected


# What a participation judge sees


def thread(*events: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**event, "event_id": f"$e{n}"} for n, event in enumerate(events)]


def test_the_judge_sees_pseudonyms_and_up_to_eight_recent_messages() -> None:
    events = thread(
        *(message(f"old {n}", **in_thread()) for n in range(5)),
        message("hi @bob:example.org, ask @alice_tg:example.org", sender=ALICE, **in_thread()),
        message("Sure, I can do that.", sender=HELPER, **in_thread()),
        message("@helper:example.org? and @telegram:example.org", sender=BOB, **in_thread()),
        message("relayed", sender=BRIDGE, **in_thread()),
        message("Coder here", sender=CODER, **in_thread()),
    )
    request = participation_request(events, HELPER, POLICY, "Reply when you can help.")
    lines = [(line.role, line.author, line.text) for line in request.lines()]
    assert lines == [
        ("user", "Person 1", "old 2"),
        ("user", "Person 1", "old 3"),
        ("user", "Person 1", "old 4"),
        ("user", "Person 1", "hi Person 2, ask Person 1"),
        ("assistant", "Helper", "Sure, I can do that."),
        ("user", "Person 2", "Person 3? and Bot 1"),
        ("user", "Bot 1", "relayed"),
        ("user", "Coder", "Coder here"),
    ]
    sent = request.prompt() + json.dumps(request.state())
    assert "example.org" not in sent
    assert "Reply when you can help." in request.prompt()
    assert request.state()["instructions"] == "Reply when you can help."
    assert participation_skip(request) is None


def test_a_reply_streamed_by_edits_is_seen_as_its_newest_edit() -> None:
    edit = {
        "sender": HELPER,
        "content": {"m.new_content": {"msgtype": "m.text", "body": "The whole answer."}},
    }
    raw = {**message("The wh", sender=HELPER), "unsigned": {"m.relations": {"m.replace": edit}}}
    assert shown_content(raw)["body"] == "The whole answer."
    forged = {**raw, "unsigned": {"m.relations": {"m.replace": {**edit, "sender": BOB}}}}
    assert shown_content(forged)["body"] == "The wh", "only the author's own edit counts"


def _skip(*events: dict[str, Any], guidance: str = "") -> Skip | None:
    return participation_skip(participation_request(thread(*events), HELPER, POLICY, guidance))


SKIPS = {
    "image": ([message("cat.png", msgtype="m.image", url="mxc://x/y")], "", Skip.MEDIA),
    "file_with_caption": (
        [message("see this", msgtype="m.file", filename="report.pdf", url="mxc://x/y")],
        "",
        Skip.MEDIA,
    ),
    "voice": ([message("voice", msgtype="m.audio")], "", Skip.MEDIA),
    "attachment_link_in_text": ([message("here: mxc://example.org/abc")], "", Skip.ATTACHMENT),
    "secret_in_a_message": ([message("the key is ghp_" + "a" * 36)], "", Skip.SECRET),
    "secret_in_the_guidance": ([message("hi")], "password=hunter22", Skip.SECRET),
    "over_16_kb": ([message("x" * 9_000), message("y" * 9_000)], "", Skip.TOO_LARGE),
    "just_under_16_kb": ([message("x" * 7_000), message("y" * 7_000)], "", None),
    "plain_text": ([message("thoughts on the deploy?")], "", None),
}


@pytest.mark.parametrize(("events", "guidance", "skip"), SKIPS.values(), ids=SKIPS.keys())
def test_the_backend_is_skipped_for_media_attachments_secrets_and_size(
    events: list[dict[str, Any]], guidance: str, skip: Skip | None
) -> None:
    assert _skip(*events, guidance=guidance) == skip


def test_files_appear_only_by_name_and_caption() -> None:
    events = thread(
        message("report.pdf", msgtype="m.file", url="mxc://x/y"),
        message("look", msgtype="m.image", filename="cat.png", url="mxc://x/z"),
    )
    texts = [line.text for line in participation_request(events, HELPER, POLICY, None).lines()]
    assert texts == ["[file: report.pdf]", "[image: cat.png] look"]
    assert "mxc://" not in json.dumps(participation_request(events, HELPER, POLICY, None).state())


def test_the_size_limit_counts_what_is_sent() -> None:
    request = participation_request(thread(message("z" * 16_000)), HELPER, POLICY, None)
    assert request.size > MAX_JUDGE_BYTES >= 16_000


# Mid-turn: when the judge is skipped, and what it sees

ACTIVE = [message("refactor the storage layer", event_id="$active", **in_thread())]
THANKS = Queued(message("thanks!", sender=BOB, **in_thread()), "Working on it")


def _mid_turn(
    *,
    active: list[dict[str, Any]] | None = None,
    earlier: list[dict[str, Any]] | None = None,
    queued: list[Queued] | None = None,
    room_mode: bool = False,
    instructions: str = "",
) -> tuple[MidTurnSkip | None, Any]:
    data = MidTurnInput(
        ACTIVE if active is None else active, earlier, [THANKS] if queued is None else queued, room_mode
    )
    return mid_turn_request(data, HELPER, POLICY, instructions)


MID_TURN_SKIPS = {
    "room_thread_mode": ({"room_mode": True, "earlier": []}, MidTurnSkip.ROOM_THREAD_MODE),
    "history_unavailable": ({"earlier": None}, MidTurnSkip.HISTORY_UNAVAILABLE),
    "active_request_unknown": ({"earlier": [], "active": []}, MidTurnSkip.HISTORY_UNAVAILABLE),
    "queued_attachment": (
        {"earlier": [], "queued": [Queued(message("x.png", msgtype="m.image"), "")]},
        MidTurnSkip.NOT_TYPED_TEXT,
    ),
    "queued_text_with_attachment_link": (
        {"earlier": [], "queued": [Queued(message("see mxc://a/b"), "")]},
        MidTurnSkip.NOT_TYPED_TEXT,
    ),
    "active_request_not_text": (
        {"earlier": [], "active": [message("voice", msgtype="m.audio")]},
        MidTurnSkip.NOT_TYPED_TEXT,
    ),
    "nine_queued": ({"earlier": [], "queued": [THANKS] * 9}, MidTurnSkip.TOO_MANY_QUEUED),
    "essential_input_over_16_kb": (
        {"earlier": [], "active": [message("a" * 17_000)]},
        MidTurnSkip.ESSENTIAL_INPUT_TOO_LARGE,
    ),
    "credential_in_a_queued_message": (
        {"earlier": [], "queued": [Queued(message("use AKIAIOSFODNN7EXAMPLE"), "")]},
        MidTurnSkip.CREDENTIALS,
    ),
    "credential_in_an_earlier_message": (
        {"earlier": [message("token: abcdef123456")]},
        MidTurnSkip.CREDENTIALS,
    ),
    "credential_in_the_instructions": (
        {"earlier": [], "instructions": "api_key=0123456789"},
        MidTurnSkip.CREDENTIALS,
    ),
    "eight_queued_are_judged": ({"earlier": [], "queued": [THANKS] * 8}, None),
    "plain_thanks_is_judged": ({"earlier": []}, None),
}


@pytest.mark.parametrize(("options", "skip"), MID_TURN_SKIPS.values(), ids=MID_TURN_SKIPS.keys())
def test_mid_turn_judgment_is_skipped_by_the_pages_rules(options: dict[str, Any], skip: MidTurnSkip) -> None:
    found, request = _mid_turn(**options)
    assert found == skip
    assert (request is None) == (skip is not None)


def test_the_mid_turn_judge_sees_the_request_the_queued_messages_and_the_reply_so_far() -> None:
    queued = [THANKS, Queued(message("also, is it still running?", sender=ALICE), "Working on it")]
    _skip, request = _mid_turn(earlier=[message("earlier question")], queued=queued, instructions="Be kind.")
    assert [(title, [line.render() for line in lines]) for title, lines in request.sections] == [
        ("Earlier messages", ["Person 1: earlier question"]),
        ("The request being worked on", ["Person 1: refactor the storage layer"]),
        (
            "Sent while it works",
            [
                "Helper: [its reply so far] Working on it",
                "Person 2: thanks!",
                "Person 1: also, is it still running?",
            ],
        ),
    ]
    assert request.guidance == "Be kind."


def test_long_earlier_messages_are_shortened_and_the_oldest_drop_out_to_fit_16_kb() -> None:
    earlier = [message(f"{n} " + "w" * 5_000, event_id=f"$old{n}") for n in range(10)]
    _skip, request = _mid_turn(earlier=earlier)
    assert request.size <= MAX_JUDGE_BYTES
    kept = [line.text for line in dict(request.sections)["Earlier messages"]]
    assert kept, "the newest earlier messages are kept"
    assert kept[-1].startswith("9 ")
    assert kept[-1].endswith("… (shortened)")
    assert len(kept) < 10
    assert not any(text.startswith("0 ") for text in kept)
