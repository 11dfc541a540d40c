"""Compaction: near the window or on overflow, older turns become a summary that survives a resume."""

from __future__ import annotations

import json
from pathlib import Path

from miniroom.engine import events as ev
from miniroom.engine.agent import AgentConfig
from miniroom.engine.compaction import (
    SUMMARIZER_PROMPT,
    Compactor,
    Cut,
    NotCompacted,
    choose_cut,
    context_tokens,
    file_activity,
    last_reported,
    needs_compaction,
    token_ratio,
)
from miniroom.engine.session import Session
from miniroom.llm.messages import AssistantMessage, Message, TextContent, ToolCall, Usage, UserMessage
from miniroom.llm.model import Model
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.conftest import MakeAgent

LONG = "x" * 2_000  # about 500 tokens


def _small_model(provider: ScriptedProvider) -> Model:
    return Model(
        id="tiny",
        provider="scripted",
        api="anthropic-messages",
        base_url=provider.url,
        api_key="k",
        context_window=4_000,
    )


def _system(body: dict[str, object]) -> str:
    return json.dumps(body.get("system"))


async def _two_long_turns(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> tuple[object, list[ev.AgentEvent]]:
    provider.script(
        Reply(tool_calls=[("read", {"path": "notes.md"})], usage=(100, 10, 0, 0)),
        Reply(text="first answer " + LONG, usage=(100, 10, 0, 0)),
        Reply(text="second answer " + LONG, usage=(2_500, 500, 0, 0)),
    )
    (tmp_path / "notes.md").write_text("notes\n")
    agent, seen = make_agent(provider, tmp_path, model=_small_model(provider))
    await agent.prompt("first question " + LONG)
    await agent.prompt("second question " + LONG)
    return agent, seen


async def test_context_near_the_window_is_compacted_before_the_next_request(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    agent, seen = await _two_long_turns(provider, tmp_path, make_agent)
    provider.script(
        Reply(text="## Goal\nanswer questions", usage=(900, 50, 0, 0)), Reply(text="third answer")
    )
    await agent.prompt("third question")  # type: ignore[attr-defined]
    summary_request, after = provider.requests[-2], provider.requests[-1]
    assert SUMMARIZER_PROMPT[:40] in _system(summary_request.body)
    assert "first question" in json.dumps(summary_request.body)
    sent = json.dumps(after.body["messages"])
    assert "answer questions" in sent  # the summary
    assert "first question" not in sent  # compacted away
    assert "third question" in sent
    compacted = [e for e in seen if isinstance(e, ev.Compacted)]
    assert len(compacted) == 1
    assert compacted[0].reason == "threshold"
    assert "Read: notes.md" in compacted[0].summary


async def test_a_compaction_survives_a_resume(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    agent, _ = await _two_long_turns(provider, tmp_path, make_agent)
    provider.script(
        Reply(text="## Goal\nthe summary text"), Reply(text="third answer", usage=(100, 10, 0, 0))
    )
    await agent.prompt("third question")  # type: ignore[attr-defined]
    agent.session.close()  # type: ignore[attr-defined]
    resumed = Session.load(agent.session.path)  # type: ignore[attr-defined]
    again, _ = make_agent(provider, tmp_path, session=resumed, model=_small_model(provider))
    provider.script(Reply(text="fourth answer"))
    await again.prompt("fourth question")
    sent = json.dumps(provider.requests[-1].body["messages"])
    assert "the summary text" in sent
    assert "first question" not in sent
    assert "third question" in sent


async def test_context_overflow_compacts_then_retries_once(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    agent, seen = await _two_long_turns(provider, tmp_path, make_agent)
    overflow = Reply.error(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum")
    agent.config.model = Model(  # type: ignore[attr-defined]
        id="big",
        provider="scripted",
        api="anthropic-messages",
        base_url=provider.url,
        api_key="k",
        context_window=1_000_000,
    )
    provider.script(overflow, Reply(text="## Goal\nsummary after overflow"), Reply(text="fine now"))
    ended = await agent.prompt("third question")  # type: ignore[attr-defined]
    assert ended.error is None
    assert ended.message.text == "fine now"
    assert [e.reason for e in seen if isinstance(e, ev.Compacted)] == ["overflow"]


async def test_manual_compaction_with_nothing_old_does_nothing(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(text="short"))
    agent, _ = make_agent(provider, tmp_path)
    await agent.prompt("hi")
    outcome = await agent.compact("manual")
    assert isinstance(outcome, NotCompacted)
    assert outcome.why.startswith("nothing to compact: the conversation has no earlier part to summarize")
    assert len(provider.requests) == 1


def test_the_cut_never_splits_a_tool_call_from_its_result() -> None:
    def entry(message: object) -> dict[str, object]:
        from miniroom.llm.serialize import message_to_dict

        return {"message": message_to_dict(message)}  # type: ignore[arg-type]

    call = AssistantMessage([ToolCall("c1", "read", {"path": "a.py"})])
    from miniroom.llm.messages import ToolResultMessage

    entries = [
        entry(UserMessage.of_text("old " + LONG)),
        entry(call),
        entry(ToolResultMessage("c1", "read", [TextContent(LONG)])),
        entry(UserMessage.of_text("new " + LONG)),
        entry(AssistantMessage([TextContent(LONG)])),
    ]
    assert choose_cut(entries, keep_recent_tokens=600) == Cut(3)
    assert choose_cut(entries, keep_recent_tokens=10) == Cut(3)  # the answer right after it: no gain
    # inside the first turn: at the answer whose call has its result, keeping the turn's request
    inside = [entries[0], entry(AssistantMessage([TextContent("looking")])), *entries[1:]]
    assert choose_cut(inside, keep_recent_tokens=1_100) == Cut(2, request=0)
    assert choose_cut(inside, keep_recent_tokens=9_999) == Cut(4)  # too little to keep: whole turns
    assert choose_cut(inside, keep_recent_tokens=1_100, request_limit=100) == Cut(2)  # too large to keep
    assert choose_cut(entries[:1]) is None
    assert choose_cut(entries[:2], keep_recent_tokens=1) is None  # a first answer: nothing to summarize yet
    assert file_activity([call]).read == {"a.py"}


def test_needs_compaction_reads_the_last_reported_usage() -> None:
    reply = AssistantMessage([TextContent("x")], usage=Usage(input=3_000, output=100))
    assert needs_compaction([UserMessage.of_text("q"), reply], context_window=4_000)
    assert not needs_compaction([UserMessage.of_text("q"), reply], context_window=200_000)


CJK = "漢字の文章は一文字が一トークンほどになる" * 40  # 800 characters: chars / 4 says 200 tokens


async def test_a_reported_context_over_the_window_compacts_even_when_characters_say_it_is_small(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    model = Model(
        id="tiny", provider="scripted", api="anthropic-messages", base_url=provider.url, context_window=10_000
    )
    provider.script(
        Reply(text="FIRST-ANSWER " + CJK, usage=(100, 10, 0, 0)),
        Reply(text="second answer " + CJK, usage=(100, 10, 0, 0)),
        Reply(text="third answer " + CJK, usage=(18_000, 1_000, 0, 0)),  # 190% of the window
        Reply(text="## Goal\nthe summary", usage=(500, 20, 0, 0)),
        Reply(text="fourth answer"),
    )
    agent, seen = make_agent(provider, tmp_path, model=model)
    for prompt in ("FIRST-QUESTION ", "second question ", "third question "):
        await agent.prompt(prompt + CJK)
    assert not any(isinstance(e, ev.Compacted) for e in seen)
    await agent.prompt("fourth question")
    (compacted,) = [e for e in seen if isinstance(e, ev.Compacted)]
    assert compacted.reason == "threshold"
    assert compacted.tokens_before >= 19_000
    answering = json.dumps(provider.requests[-1].body["messages"], ensure_ascii=False)
    assert "FIRST-QUESTION" not in answering
    assert "the summary" in answering
    assert "fourth question" in answering


def test_the_estimate_is_calibrated_by_the_last_reported_usage() -> None:
    question = UserMessage.of_text(CJK)  # estimated at 200 tokens
    answer = AssistantMessage([TextContent(CJK)], usage=Usage(input=700, output=100))  # 800 for 400
    follow_up = UserMessage.of_text(CJK)
    assert last_reported([question, answer, follow_up]) == (1, 800)
    assert token_ratio(800, 400) == 2.0
    assert context_tokens([question, answer, follow_up], ratio=2.0) == 800 + 2 * 200
    assert not needs_compaction([question, answer, follow_up], context_window=2_200, ratio=1.0)
    assert needs_compaction([question, answer, follow_up], context_window=2_200, ratio=2.0)
    # never below characters / 4
    assert token_ratio(10, 400) == 1.0
    assert token_ratio(10, 0) == 1.0


def test_the_compactor_counts_each_added_message_and_calibrates_by_the_reported_usage(tmp_path: Path) -> None:
    model = Model(
        id="tiny", provider="scripted", api="anthropic-messages", base_url="http://x", context_window=2_200
    )
    settings = AgentConfig(model, "", [], tmp_path)
    session, other = (
        Session.create(tmp_path / "sessions", tmp_path),
        Session.create(tmp_path / "other", tmp_path),
    )
    compactor = Compactor(session, [])
    question = UserMessage.of_text(CJK)  # estimated at 200 tokens
    answer = AssistantMessage([TextContent(CJK)], usage=Usage(input=700, output=100))  # 800 for 400: twice
    messages: list[Message] = []
    for message in (question, answer, UserMessage.of_text(CJK)):
        messages.append(message)
        compactor.added(message)
    assert compactor.due(messages, settings)  # 800 reported + 2 x 200 estimated is past 2,200 - 1,100
    assert not Compactor(other, []).due(messages[:1], settings)
    session.close()
    other.close()
