"""Adaptive participation on embedded rooms: two people and an agent that already replied in their thread;
the scripted provider (or the TypeSafe stand-in) judges, the agent answers or reacts 👀 and stays quiet."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from miniroom.rooms.runtime.turn_queue import TurnKey
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.testing.typesafe_standin import TypesafeStandIn
from tests.runtime.support import BOB, Rooms, agent_entry, prompt_of, reactions, running_rooms, until

HELPER = "@helper:miniroom.local"
EYES = "👀"
GUIDANCE = "Reply when you can help; leave human conversation uninterrupted."


def helper(**participation: Any) -> dict[str, Any]:
    return {"helper": {**agent_entry("Helper"), "participation": participation}}


LLM_JUDGE = {
    "debounce_seconds": 0,
    "decline_reaction": EYES,
    "instructions": GUIDANCE,
    "judgment": {"provider": "llm", "model": "test", "timeout_seconds": 30},
}


@pytest.fixture
def judgments(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="miniroom.rooms")
    return caplog


async def thread_with_helper(rooms: Rooms) -> str:
    """Alice asks in the room; the helper answers, starting the thread (one scripted reply). Bob joins."""
    rooms.store.join(rooms.lobby, BOB, "Bob")
    root = rooms.post("Can someone help us plan the release?")
    await rooms.settle()
    assert len(rooms.agent_messages(HELPER)) == 1
    return root


async def test_in_a_two_person_thread_the_agent_answers_when_judged_useful_and_reacts_otherwise(
    tmp_path: Path, provider: ScriptedProvider, judgments: pytest.LogCaptureFixture
) -> None:
    provider.script(
        Reply(text="Happy to help with the release."),
        Reply(text="yes"),
        Reply(text="Friday works: the freeze ends Thursday."),
        Reply(text="no"),
    )
    async with running_rooms(tmp_path, provider, helper(**LLM_JUDGE)) as rooms:
        root = await thread_with_helper(rooms)
        question = rooms.post("Could we ship on Friday?", sender=BOB, thread=root)
        await rooms.settle()
        aside = rooms.post("Bob, let's talk about it over lunch.", thread=root)
        await rooms.settle()
        replies = [rooms.shown_text(reply["event_id"]) for reply in rooms.agent_messages(HELPER)]
        assert replies == ["Happy to help with the release.", "Friday works: the freeze ends Thursday."]
        assert rooms.agent_messages(HELPER)[1]["content"]["m.relates_to"]["m.in_reply_to"] == {
            "event_id": question
        }
        assert reactions(rooms, HELPER) == [(aside, EYES)], (
            "one reaction on the declined message, nothing more"
        )
    judge = provider.requests[1].body
    assert not judge.get("tools")
    assert "system" not in judge, "no agent system prompt"
    assert GUIDANCE in prompt_of(provider.requests[1])
    assert "Could we ship on Friday?" in prompt_of(provider.requests[1])
    assert "miniroom.local" not in prompt_of(provider.requests[1])
    assert provider.requests[2].body.get("tools"), "the approved reply is a normal turn, with tools"
    decided = [line for line in judgments.messages if "reason=JUDGED" in line or "reason=DECLINED" in line]
    where = f"room={rooms.lobby} thread={root} agent=helper"
    assert decided == [
        f"Decision: event={question} {where} outcome=respond reason=JUDGED",
        f"Decision: event={aside} {where} outcome=silent reason=DECLINED",
    ]
    logged = [line for line in judgments.messages if line.startswith("Judgment: ")]
    assert [line.split(" latency=")[0] for line in logged] == [
        f"Judgment: kind=participation agent=helper event={question} backend=llm model=scripted/test-model "
        "decision=yes failure=none",
        f"Judgment: kind=participation agent=helper event={aside} backend=llm model=scripted/test-model "
        "decision=no failure=none",
    ]


async def test_a_malformed_judgment_falls_back_to_the_reply_model(
    tmp_path: Path, provider: ScriptedProvider, judgments: pytest.LogCaptureFixture
) -> None:
    provider.script(
        Reply(text="Happy to help."), Reply(text="Well, it depends on the plan."), Reply(text="no")
    )
    async with running_rooms(tmp_path, provider, helper(**LLM_JUDGE)) as rooms:
        root = await thread_with_helper(rooms)
        aside = rooms.post("Alice, lunch?", sender=BOB, thread=root)
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 1
        assert reactions(rooms, HELPER) == [(aside, EYES)]
    failures = [line.split(" latency=")[0] for line in judgments.messages if line.startswith("Judgment: ")]
    assert failures[-2:] == [
        f"Judgment: kind=participation agent=helper event={aside} backend=llm model=scripted/test-model "
        "decision=none failure=malformed_output",
        f"Judgment: kind=participation agent=helper event={aside} backend=reply_model "
        "model=scripted/test-model decision=no failure=none",
    ]


async def test_a_failed_check_never_reacts_and_the_agent_stays_quiet(
    tmp_path: Path, provider: ScriptedProvider, judgments: pytest.LogCaptureFixture
) -> None:
    provider.script(
        Reply(text="Happy to help."),
        Reply.error(400, "invalid_request_error", "judge refused"),
        Reply.error(400, "invalid_request_error", "reply model refused"),
    )
    async with running_rooms(tmp_path, provider, helper(**LLM_JUDGE)) as rooms:
        root = await thread_with_helper(rooms)
        untagged = rooms.post("anyone around?", sender=BOB, thread=root)
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 1
        assert reactions(rooms, HELPER) == []
    assert (
        f"Decision: event={untagged} room={rooms.lobby} thread={root} agent=helper outcome=silent "
        "reason=JUDGMENT_FAILED"
    ) in judgments.messages


async def test_without_a_judgment_the_reply_model_decides_with_tools_disabled(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Happy to help."), Reply(text="yes"), Reply(text="Use the staging branch."))
    async with running_rooms(tmp_path, provider, helper(debounce_seconds=0)) as rooms:
        root = await thread_with_helper(rooms)
        rooms.post("which branch do we release from?", sender=BOB, thread=root)
        await rooms.settle()
        assert rooms.shown_text(rooms.agent_messages(HELPER)[-1]["event_id"]) == "Use the staging branch."
    assert not provider.requests[1].body.get("tools")
    assert "system" not in provider.requests[1].body


async def test_an_agent_without_participation_keeps_the_mention_rule(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Happy to help."))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        root = await thread_with_helper(rooms)
        rooms.post("which branch do we release from?", sender=BOB, thread=root)
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 1
    assert len(provider.requests) == 1, "nobody was asked to judge"


async def test_messages_within_the_debounce_are_judged_together_and_answered_once(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Happy to help."), Reply(text="yes"), Reply(text="Both: Friday, and staging."))
    released = asyncio.Event()

    async def debounce(seconds: float) -> None:
        assert seconds == 3.0
        await released.wait()

    settings = {**LLM_JUDGE, "debounce_seconds": 3.0}
    options = {"debounce_sleep": debounce}
    async with running_rooms(tmp_path, provider, helper(**settings), runtime_options=options) as rooms:
        root = await thread_with_helper(rooms)
        first = rooms.post("Could we ship on Friday?", sender=BOB, thread=root)
        second = rooms.post("And from which branch?", sender=BOB, thread=root)
        assert rooms.runtime is not None
        key = TurnKey("helper", rooms.lobby, root)
        participation = rooms.runtime.participation
        await until(lambda: participation.waiting(key) == (first, second), "both messages to be gathered")
        released.set()
        await rooms.settle()
        [_, reply] = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]) == "Both: Friday, and staging."
        assert reply["content"]["m.relates_to"]["m.in_reply_to"] == {"event_id": second}
    assert len(provider.requests) == 3, "one judgment and one turn for both messages"
    judged = prompt_of(provider.requests[1])
    assert "Could we ship on Friday?" in judged
    assert "And from which branch?" in judged
    turn = prompt_of(provider.requests[2])
    assert "Could we ship on Friday?" in turn
    assert "And from which branch?" in turn


async def test_typesafe_judges_with_the_key_from_the_env_file_beside_config_yaml(
    tmp_path: Path, provider: ScriptedProvider, judgments: pytest.LogCaptureFixture
) -> None:
    provider.script(Reply(text="Happy to help."), Reply(text="Staging."))
    settings = {
        "debounce_seconds": 0,
        "judgment": {"provider": "typesafe", "threshold": 0.8, "timeout_seconds": 10},
    }
    with TypesafeStandIn() as standin:
        standin.script(0.93)
        (tmp_path / ".env").write_text(f"TYPESAFE_API_KEY=ts-from-file\nTYPESAFE_BASE_URL={standin.url}\n")
        async with running_rooms(tmp_path, provider, helper(**settings)) as rooms:
            root = await thread_with_helper(rooms)
            question = rooms.post("which branch do we release from?", sender=BOB, thread=root)
            await rooms.settle()
            assert rooms.shown_text(rooms.agent_messages(HELPER)[-1]["event_id"]) == "Staging."
        [seen] = standin.requests
    assert seen.headers["authorization"] == "Bearer ts-from-file"
    assert [line["text"] for line in seen.body["state"]["messages"]["Recent messages, oldest first"]] == [
        "Can someone help us plan the release?",
        "Happy to help.",
        "which branch do we release from?",
    ]
    [logged] = [line for line in judgments.messages if line.startswith("Judgment: ")]
    assert logged.startswith(
        f"Judgment: kind=participation agent=helper event={question} backend=typesafe model=jev-standin "
        "decision=yes failure=none"
    )
    assert logged.endswith("probability=0.930 threshold=0.8")
    assert "ts-from-file" not in "\n".join(judgments.messages)


async def test_a_detected_secret_skips_the_backend_and_the_reply_model_decides(
    tmp_path: Path, provider: ScriptedProvider, judgments: pytest.LogCaptureFixture
) -> None:
    provider.script(Reply(text="Happy to help."), Reply(text="no"))
    settings = {**LLM_JUDGE, "judgment": {"provider": "typesafe"}}
    with TypesafeStandIn() as standin:
        env = {"TYPESAFE_API_KEY": "ts-key", "TYPESAFE_BASE_URL": standin.url}
        async with running_rooms(tmp_path, provider, helper(**settings), env=env) as rooms:
            root = await thread_with_helper(rooms)
            secret = rooms.post("Alice, the deploy password=Tr0ub4dor&3", sender=BOB, thread=root)
            await rooms.settle()
            assert reactions(rooms, HELPER)[-1] == (secret, EYES)
        assert [request for request in standin.requests if "Tr0ub4dor" in str(request.body)] == []
    assert (
        f"Judgment backend skipped: kind=participation agent=helper event={secret} reason=detected_secret "
        "(the reply model decides)"
    ) in judgments.messages
