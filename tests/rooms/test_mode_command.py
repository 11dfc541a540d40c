"""`!mode AGENT minimal|show|standard|reset`: parsing and the decision, as pure functions."""

from __future__ import annotations

import pytest

from miniroom.rooms.commands import (
    Help,
    ModeChange,
    ModeCommand,
    ModeFacts,
    Outcome,
    is_command,
    parse_command,
    run_mode_command,
)


@pytest.mark.parametrize(
    ("body", "command"),
    [
        ("!mode helper minimal", ModeCommand("helper", "minimal")),
        ("!mode helper show", ModeCommand("helper", "show")),
        ("!mode helper", ModeCommand("helper", "show")),
        ("!mode helper standard", ModeCommand("helper", "standard")),
        ("!mode helper reset", ModeCommand("helper", "standard")),
        ("  !MODE Helper MINIMAL ", ModeCommand("helper", "minimal")),
        ("!mode", Help('"!mode" needs an agent and a choice, e.g. "!mode helper minimal".')),
        ("!mode helper tiny", Help('"!mode helper tiny" is not a choice.')),
        ("!mode helper minimal now", Help('"!mode helper minimal now" is not a choice.')),
    ],
)
def test_mode_commands_parse(body: str, command: object) -> None:
    assert is_command(body)
    assert parse_command(body) == command


def facts(**changes: object) -> ModeFacts:
    base = {
        "agent": "helper",
        "agents_here": ("helper", "coder"),
        "may_talk": True,
        "where": "this thread",
        "minimal_now": False,
        "problems": (),
    }
    return ModeFacts(**{**base, **changes})  # type: ignore[arg-type]


def test_minimal_is_saved_when_nothing_is_missing() -> None:
    result = run_mode_command(ModeCommand("helper", "minimal"), facts())
    assert (result.outcome, result.change) == (Outcome.SET, ModeChange.SAVE_MINIMAL)
    assert result.reply == (
        "helper answers in minimal mode in this thread: a short prompt and one bash tool, whose "
        "miniroom-agent reaches its other tools. Send !mode helper standard to go back."
    )


def test_every_missing_requirement_is_listed_and_nothing_saved() -> None:
    problems = (
        "agents.helper.tools in config.yaml does not include bash: add bash to it",
        "MINIROOM_API_KEY x",
    )
    result = run_mode_command(ModeCommand("helper", "minimal"), facts(problems=problems))
    assert (result.outcome, result.change) == (Outcome.UNAVAILABLE, ModeChange.NONE)
    assert result.reply.startswith(
        "helper cannot answer in minimal mode, so nothing was saved. It needs:\n"
        "- agents.helper.tools in config.yaml does not include bash: add bash to it\n- MINIROOM_API_KEY x\n"
    )
    assert ".env" in result.reply
    assert "README.md" in result.reply


@pytest.mark.parametrize(("minimal_now", "change"), [(True, ModeChange.CLEAR), (False, ModeChange.NONE)])
def test_standard_and_reset_remove_the_choice(minimal_now: bool, change: ModeChange) -> None:
    result = run_mode_command(ModeCommand("helper", "standard"), facts(minimal_now=minimal_now))
    assert (result.outcome, result.change, result.reply) == (
        Outcome.RESET,
        change,
        "helper answers in standard mode in this thread.",
    )


@pytest.mark.parametrize(("minimal_now", "word"), [(True, "minimal"), (False, "standard")])
def test_show_says_the_mode_here(minimal_now: bool, word: str) -> None:
    result = run_mode_command(
        ModeCommand("helper", "show"), facts(minimal_now=minimal_now, where="this room")
    )
    assert result.outcome is Outcome.SHOWN
    assert result.reply.startswith(f"helper answers in {word} mode in this room")


@pytest.mark.parametrize(
    ("changes", "outcome", "reply"),
    [
        ({"agent": None}, Outcome.HELP, "No agent named helper answers here (agents here: helper, coder)."),
        ({"may_talk": False}, Outcome.DENIED, "Only people helper answers may set its mode."),
        (
            {"where": None},
            Outcome.HELP,
            "helper answers in threads: send !mode inside the thread where you talk with it.",
        ),
    ],
)
def test_refusals_save_nothing(changes: dict[str, object], outcome: Outcome, reply: str) -> None:
    result = run_mode_command(ModeCommand("helper", "minimal"), facts(**changes))
    assert (result.outcome, result.reply, result.change) == (outcome, reply, ModeChange.NONE)
