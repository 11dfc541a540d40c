"""Turns longer than the window, against a provider that counts tokens and refuses past its window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from miniroom.engine import events as ev
from miniroom.engine.agent import Agent
from miniroom.engine.session import Session
from miniroom.llm.model import Api, Model
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.conftest import MakeAgent

WINDOW = 100_000
ROUNDS = 30
OUTPUT_CHARS = 40_000  # about 10,000 tokens a tool result
SUMMARY = "## Goal\nTHE-SUMMARY of the work so far"
PROTOCOLS = pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions"])


def _model(provider: ScriptedProvider, api: Api, window: int = WINDOW) -> Model:
    url = provider.url if api == "anthropic-messages" else provider.openai_base_url
    return Model(id="counted", provider="scripted", api=api, base_url=url, api_key="k", context_window=window)


def _files(folder: Path, count: int, chars: int = OUTPUT_CHARS) -> list[str]:
    names = []
    for n in range(count):
        line = f"file {n:02d} line " + "x" * 80 + "\n"
        (folder / f"f{n:02d}.txt").write_text(line * (chars // len(line)))
        names.append(f"f{n:02d}.txt")
    return names


def _sent(provider: ScriptedProvider, index: int) -> str:
    return json.dumps(provider.requests[index].body.get("messages"))


def _summarizes(provider: ScriptedProvider) -> None:
    provider.script_for("Summarize the session so far", Reply(text=SUMMARY), repeat=True)


def _unmarked(messages: list[dict[str, object]]) -> str:
    """The messages without their cache marks, which move to the newest message at every request."""
    return json.dumps(messages).replace(', "cache_control": {"type": "ephemeral"}', "")


def _compactions(seen: list[ev.AgentEvent]) -> list[ev.Compacted]:
    return [event for event in seen if isinstance(event, ev.Compacted)]


@PROTOCOLS
async def test_a_turn_of_thirty_large_outputs_finishes_in_the_window(
    api: Api, tmp_path: Path, make_agent: MakeAgent
) -> None:
    with ScriptedProvider(context_window=WINDOW) as provider:
        _summarizes(provider)
        names = _files(tmp_path, ROUNDS)
        provider.script(*[Reply(tool_calls=[("read", {"path": name})]) for name in names])
        provider.script(Reply(text="ALL-READ"))
        agent, seen = make_agent(provider, tmp_path, model=_model(provider, api))
        ended = await agent.prompt("FIX-THE-TESTS: read every file")
        assert ended.error is None, ended.error
        assert ended.message.text == "ALL-READ"
        assert provider.refused == 0
        cleared = [c for c in _compactions(seen) if c.action == "cleared"]
        assert cleared, "old tool output was never cleared"
        assert all(c.tokens_after < c.tokens_before for c in cleared)
        last = _sent(provider, -1)
        assert "FIX-THE-TESTS" in last
        assert '[output of read \\"f00.txt\\" cleared: 39 KB; read it again to see it]' in last
        assert "file 29 line" in last  # the newest output is there in full
        assert max(len(json.dumps(r.body)) for r in provider.requests) < WINDOW * 4


@PROTOCOLS
async def test_a_turn_that_outgrows_the_window_by_its_own_words_is_summarized_inside_the_turn(
    api: Api, tmp_path: Path, make_agent: MakeAgent
) -> None:
    """Nothing to clear: each round is a long `write` the model made, so the turn itself is summarized."""
    with ScriptedProvider(context_window=WINDOW) as provider:
        _summarizes(provider)
        body = "y" * 99 + "\n"
        writes = [
            Reply(
                tool_calls=[("write", {"path": f"out{n:02d}.txt", "content": f"OUT-{n:02d}\n" + body * 400})],
                fragment=4096,  # 40 KB a round in pieces of 32 characters: seconds of parsing
            )
            for n in range(ROUNDS)
        ]
        provider.script(*writes, Reply(text="ALL-WRITTEN"))
        agent, seen = make_agent(provider, tmp_path, model=_model(provider, api))
        ended = await agent.prompt("WRITE-THIRTY-FILES please")
        assert ended.error is None, ended.error
        assert ended.message.text == "ALL-WRITTEN"
        assert provider.refused == 0
        summarized = [c for c in _compactions(seen) if c.action == "summarized"]
        assert summarized
        assert all(c.reason == "threshold" for c in summarized)
        last = _sent(provider, -1)
        assert "THE-SUMMARY" in last
        assert "WRITE-THIRTY-FILES" in last  # the turn's request, kept verbatim after the summary
        assert "OUT-00" not in last
        assert "OUT-29" in last
        summary_requests = [r for r in provider.requests if "Summarize the session" in json.dumps(r.body)]
        assert "the turn so far" in json.dumps(summary_requests[0].body)
        written = [tmp_path / f"out{n:02d}.txt" for n in range(ROUNDS)]
        assert all(path.read_text().startswith(f"OUT-{n:02d}") for n, path in enumerate(written))


@PROTOCOLS
async def test_after_a_too_long_refusal_every_request_is_smaller(
    api: Api, tmp_path: Path, make_agent: MakeAgent
) -> None:
    """The model believes in a window twice the provider's: each refusal must shrink the next request."""
    with ScriptedProvider(context_window=WINDOW // 2) as provider:
        _summarizes(provider)
        names = _files(tmp_path, 12)
        provider.script(*[Reply(tool_calls=[("read", {"path": name})]) for name in names])
        provider.script(Reply(text="DONE-DESPITE-REFUSALS"))
        agent, seen = make_agent(provider, tmp_path, model=_model(provider, api, window=WINDOW))
        ended = await agent.prompt("read them all")
        assert ended.error is None, ended.error
        assert ended.message.text == "DONE-DESPITE-REFUSALS"
        assert provider.refused >= 1
        sizes = [len(json.dumps(r.body)) for r in provider.requests]
        refused = [i for i, r in enumerate(provider.requests) if len(json.dumps(r.body)) > WINDOW // 2 * 4]
        for index in refused:
            assert sizes[index + 1] < sizes[index]
        assert any(c.reason == "overflow" for c in _compactions(seen))


async def test_one_output_larger_than_the_window_is_cut_to_its_head_and_tail(
    tmp_path: Path, make_agent: MakeAgent
) -> None:
    with ScriptedProvider(context_window=8_000) as provider:
        _summarizes(provider)
        (tmp_path / "huge.txt").write_text("HEAD\n" + "z" * 45_000 + "\nTAIL\n")
        provider.script(Reply(tool_calls=[("read", {"path": "huge.txt"})]), Reply(text="read it"))
        model = _model(provider, "anthropic-messages", window=200_000)
        agent, seen = make_agent(provider, tmp_path, model=model)
        ended = await agent.prompt("read huge.txt")
        assert ended.error is None, ended.error
        assert [c.action for c in _compactions(seen)] == ["truncated"]
        last = _sent(provider, -1)
        assert "HEAD" in last
        assert "TAIL" in last
        assert "of this output cut to fit the context window" in last


async def test_a_refusal_nothing_can_shrink_ends_the_turn_with_the_error(
    tmp_path: Path, make_agent: MakeAgent
) -> None:
    with ScriptedProvider(context_window=100) as provider:
        agent, _ = make_agent(provider, tmp_path, model=_model(provider, "anthropic-messages"))
        ended = await agent.prompt("a question the window cannot hold " * 20)
        assert ended.error is not None
        assert ended.error.kind.value == "context_overflow"
        assert "prompt is too long" in ended.error.message
        assert len(provider.requests) == 1  # nothing to shrink: the same request is never sent again


async def test_twelve_resumed_turns_of_thirty_thousand_tokens_all_answer(
    tmp_path: Path, make_agent: MakeAgent
) -> None:
    with ScriptedProvider(context_window=WINDOW) as provider:
        _summarizes(provider)
        names = _files(tmp_path, 3)
        path: Path | None = None
        for turn in range(12):
            provider.script(*[Reply(tool_calls=[("read", {"path": name})]) for name in names])
            provider.script(Reply(text=f"ANSWER-{turn}"))
            session = Session.load(path) if path else None
            agent, _ = make_agent(
                provider, tmp_path, session=session, model=_model(provider, "anthropic-messages")
            )
            ended = await agent.prompt(f"QUESTION-{turn}: read the three files")
            assert ended.error is None, (turn, ended.error)
            assert ended.message.text == f"ANSWER-{turn}"
            path = agent.session.path
            await agent.aclose()
        assert provider.refused == 0
        assert "QUESTION-11" in _sent(provider, -1)


async def test_cleared_output_stays_cleared_after_a_resume(tmp_path: Path, make_agent: MakeAgent) -> None:
    """A resume sends what the last request sent, so the provider's cache of that prefix still serves."""
    with ScriptedProvider(context_window=WINDOW) as provider:
        _summarizes(provider)
        names = _files(tmp_path, 12)
        provider.script(*[Reply(tool_calls=[("read", {"path": name})]) for name in names])
        provider.script(Reply(text="first done"), Reply(text="second done"))
        agent, seen = make_agent(provider, tmp_path, model=_model(provider, "anthropic-messages"))
        await agent.prompt("read them")
        assert any(c.action == "cleared" for c in _compactions(seen))
        before = provider.requests[-1].body["messages"]
        await agent.aclose()
        resumed: Agent
        resumed, _ = make_agent(
            provider,
            tmp_path,
            session=Session.load(agent.session.path),
            model=_model(provider, "anthropic-messages"),
        )
        await resumed.prompt("and now?")
        after = provider.requests[-1].body["messages"]
        assert _unmarked(after[: len(before)]) == _unmarked(before)
        assert "cleared: 39 KB" in json.dumps(after)
        assert "file 00 line" not in json.dumps(after)
        # the full text stays in the session file
        assert "file 00 line" in agent.session.path.read_text()
