"""The OpenAI-compatible `/v1` of a real `miniroom serve`, spoken to through the official `openai` SDK, with
the scripted provider as every agent's model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.runtime.serve_process import ServeProcess
from tests.runtime.support import agent_entry, write_config

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

TOKEN = "s3cret-token"
TEAM = {"crew": {"display_name": "Crew", "agents": ["helper", "critic"], "mode": "collaborate"}}


def start_serve(tmp_path: Path, provider: ScriptedProvider, **env: str) -> ServeProcess:
    agents = {"helper": agent_entry("Helper"), "critic": agent_entry("Critic")}
    config = write_config(tmp_path, provider, agents, teams=TEAM)
    served = ServeProcess(config, {**clean_env(tmp_path / "mini"), **env}, tmp_path / "serve.log")
    served.start()
    return served


@pytest.fixture
def serve(tmp_path: Path, provider: ScriptedProvider) -> Iterator[ServeProcess]:
    served = start_serve(tmp_path, provider)
    try:
        yield served
    finally:
        served.kill()


@pytest.fixture(scope="module")
def idle_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """One `miniroom serve` for the module's tests that run no turn (they list models or are refused)."""
    with ScriptedProvider() as provider:
        served = start_serve(tmp_path_factory.mktemp("idle-serve"), provider)
        try:
            yield served
        finally:
            served.kill()


_OPEN_CLIENTS: list[openai.OpenAI] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    """Each test's clients are closed after it: a socket left to the garbage collector warns."""
    yield
    while _OPEN_CLIENTS:
        _OPEN_CLIENTS.pop().close()


def client_of(serve: ServeProcess, api_key: str = "unused") -> openai.OpenAI:
    # No retries: a refused or failed request must show as it is, not run a turn again.
    client = openai.OpenAI(base_url=f"{serve.base}v1", api_key=api_key, max_retries=0, timeout=60)
    _OPEN_CLIENTS.append(client)
    return client


def user_texts(request: RecordedRequest) -> list[str]:
    """The text of each user message the model received (tool results left out)."""
    texts = []
    for message in request.body["messages"]:
        content = message["content"]
        if message["role"] != "user":
            continue
        if isinstance(content, str):
            texts.append(content)
        else:
            texts += [block["text"] for block in content if block.get("type") == "text"]
    return texts


def test_every_agent_and_team_is_a_model(idle_serve: ServeProcess) -> None:
    models = client_of(idle_serve).models.list().data
    assert [(m.id, m.object, m.owned_by) for m in models] == [
        ("helper", "model", "miniroom"),
        ("critic", "model", "miniroom"),
        ("crew", "model", "miniroom"),
    ]
    assert all(isinstance(m.created, int) and m.created > 0 for m in models)
    assert client_of(idle_serve).models.retrieve("crew").id == "crew"


def test_a_completion_is_the_agents_answer_with_its_usage(
    serve: ServeProcess, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Hello from the helper.", usage=(120, 7, 30, 0)))
    completion = client_of(serve).chat.completions.create(
        model="helper", messages=[{"role": "user", "content": "hi"}]
    )
    assert completion.object == "chat.completion"
    assert completion.model == "helper"
    assert completion.choices[0].message.content == "Hello from the helper."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (150, 7)
    assert completion.usage.total_tokens == 157
    assert user_texts(provider.requests[0])[-1] == "hi"
    system = json.dumps(provider.requests[0].body["system"])
    assert "You are Helper. You are reached through an OpenAI-compatible API" in system
    assert "chat room" not in system


def test_a_streamed_answer_ends_with_the_usage_when_asked(
    serve: ServeProcess, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Streaming, piece by piece, to the client.", usage=(90, 11, 0, 0), fragment=4))
    stream = client_of(serve).chat.completions.create(
        model="helper",
        messages=[{"role": "user", "content": "stream it"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert {chunk.object for chunk in chunks} == {"chat.completion.chunk"}
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Streaming, piece by piece, to the client."
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1, "sent in one piece"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    last = chunks[-1]
    assert last.choices == []
    assert last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (90, 11)


def test_the_agent_runs_its_tools_on_the_server_and_the_client_gets_the_answer(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    workspace = tmp_path / "miniroom_data" / "workspaces" / "helper"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "notes.txt").write_text("the launch is on Friday\n", encoding="utf-8")
    provider.script(Reply(tool_calls=[("read", {"path": "notes.txt"})]), Reply(text="It is on Friday."))
    completion = client_of(serve).chat.completions.create(
        model="helper",
        messages=[{"role": "user", "content": "when is the launch? see notes.txt"}],
        extra_body={"tool_lines": True},
    )
    answer = completion.choices[0].message.content or ""
    assert answer.startswith("`● ")
    assert "notes.txt" in answer.splitlines()[0]
    assert answer.endswith("\n\nIt is on Friday.")
    assert "the launch is on Friday" in json.dumps(provider.requests[1].body["messages"])


def test_a_continued_conversation_tells_the_agent_only_what_is_new(
    serve: ServeProcess, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Paris."), Reply(text="About two million."))
    client = client_of(serve)
    history: list[Any] = [
        {"role": "system", "content": "Answer in one line."},
        {"role": "user", "content": "What is the capital of France?"},
    ]
    first = client.chat.completions.create(model="helper", messages=history)
    history += [
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "And its population?"},
    ]
    second = client.chat.completions.create(model="helper", messages=history)
    assert second.choices[0].message.content == "About two million."
    asked = user_texts(provider.requests[1])
    assert [text for text in asked if "capital of France" in text] == [
        "Instructions from the client:\nAnswer in one line.\n\nWhat is the capital of France?"
    ]
    assert asked[-1] == "And its population?"
    roles = [message["role"] for message in provider.requests[1].body["messages"]]
    assert roles == ["user", "assistant", "user"], "the earlier turn reached the model twice"


def test_two_conversations_run_at_once(serve: ServeProcess, provider: ScriptedProvider) -> None:
    provider.script_for("first conversation", Reply(silent=True))  # answers only when its client leaves
    provider.script_for("second conversation", Reply(text="The second answer."))
    client = client_of(serve)
    stalled = client.chat.completions.create(
        model="helper", messages=[{"role": "user", "content": "first conversation"}], stream=True
    )
    try:
        assert next(iter(stalled)).choices[0].delta.role == "assistant"
        provider.wait_for_requests(1, timeout=30)
        other = client.with_options(timeout=30).chat.completions.create(
            model="helper", messages=[{"role": "user", "content": "second conversation"}]
        )
        assert other.choices[0].message.content == "The second answer."
    finally:
        stalled.close()


def test_a_stream_whose_client_leaves_stops_its_turn(serve: ServeProcess, provider: ScriptedProvider) -> None:
    provider.script(Reply(silent=True), Reply(text="Back again."))  # the first answers nothing, ever
    client = client_of(serve).with_options(timeout=30)
    session = {"X-Session-Id": "left-early"}
    stalled = client.chat.completions.create(
        model="helper", messages=[{"role": "user", "content": "wait"}], stream=True, extra_headers=session
    )
    assert next(iter(stalled)).choices[0].delta.role == "assistant"
    provider.wait_for_requests(1, timeout=30)
    stalled.close()
    # The session's next turn waits for the first to end: it runs only if leaving stopped that one.
    again = client.chat.completions.create(
        model="helper", messages=[{"role": "user", "content": "still there?"}], extra_headers=session
    )
    assert again.choices[0].message.content == "Back again."


def test_one_sessions_turns_run_one_after_the_other(serve: ServeProcess, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="one two three four five six", fragment=3, delay=0.05), Reply(text="Done."))
    client = client_of(serve)
    session = {"X-Session-Id": "the-same-conversation"}
    first = client.chat.completions.create(
        model="helper", messages=[{"role": "user", "content": "count"}], stream=True, extra_headers=session
    )
    with ThreadPoolExecutor(1) as pool:
        pieces = iter(first)
        assert next(pieces).choices[0].delta.role == "assistant"
        assert next(pieces).choices[0].delta.content  # the first turn is streaming now
        go_on: list[Any] = [{"role": "user", "content": "go on"}]
        second = pool.submit(
            lambda: client.chat.completions.create(model="helper", messages=go_on, extra_headers=session)
        )
        rest = "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)
        assert rest.endswith("six")
        assert second.result(timeout=60).choices[0].message.content == "Done."
    seen = provider.requests[1].body["messages"]
    assert "one two three four five six" in json.dumps(seen), "the second turn ran before the first ended"


def test_a_team_answers_as_one_model(serve: ServeProcess, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="An answer."), Reply(text="Another answer."))
    completion = client_of(serve).chat.completions.create(
        model="crew", messages=[{"role": "user", "content": "what do you think?"}]
    )
    answer = completion.choices[0].message.content or ""
    assert "An answer." in answer
    assert "Another answer." in answer
    assert "Helper" in answer
    assert "Critic" in answer
    assert len(provider.requests) == 2


def test_a_turn_whose_model_fails_says_why(serve: ServeProcess, provider: ScriptedProvider) -> None:
    provider.script(*[Reply.error(401, "authentication_error", "the key is not allowed")] * 2)
    client = client_of(serve)
    with pytest.raises(openai.InternalServerError) as caught:
        client.chat.completions.create(model="helper", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 502
    assert isinstance(caught.value.body, dict)
    assert (caught.value.body["type"], caught.value.body["code"]) == ("server_error", "turn_failed")
    assert caught.value.body["message"].startswith("helper failed: ")
    assert "the key is not allowed" in caught.value.body["message"]
    stream = client.chat.completions.create(
        model="helper", messages=[{"role": "user", "content": "hi again"}], stream=True
    )
    with pytest.raises(openai.APIError, match="the key is not allowed"):
        list(stream)


def test_an_unknown_model_is_not_found_in_openais_words(idle_serve: ServeProcess) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client_of(idle_serve).chat.completions.create(
            model="nobody", messages=[{"role": "user", "content": "hi"}]
        )
    assert caught.value.status_code == 404
    assert caught.value.code == "model_not_found"
    assert caught.value.body == {
        "message": "The model `nobody` does not exist or you do not have access to it.",
        "type": "invalid_request_error",
        "param": "model",
        "code": "model_not_found",
    }


@pytest.mark.parametrize(
    ("messages", "param"),
    [
        ([], "messages"),
        ([{"role": "wizard", "content": "hi"}], "messages[0].role"),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}], "messages[0].content[0]"),
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], "messages"),
    ],
)
def test_a_bad_request_is_refused_naming_the_field(
    idle_serve: ServeProcess, messages: list[Any], param: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client_of(idle_serve).chat.completions.create(model="helper", messages=messages)
    assert caught.value.status_code == 400
    assert isinstance(caught.value.body, dict)
    assert (caught.value.body["type"], caught.value.body["param"]) == ("invalid_request_error", param)


def test_a_body_that_is_not_json_or_too_large_or_for_another_endpoint_is_refused(
    idle_serve: ServeProcess,
) -> None:
    response = httpx.post(
        f"{idle_serve.base}v1/chat/completions",
        content=b"{nope",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert "not valid JSON" in response.json()["error"]["message"]
    huge = httpx.post(
        f"{idle_serve.base}v1/chat/completions",
        content=b" " * (16 * 1024 * 1024 + 1),
        headers={"content-type": "application/json"},
    )
    assert huge.status_code == 413
    assert huge.json()["error"]["message"] == "The request body is over 16 MiB."
    elsewhere = httpx.post(f"{idle_serve.base}v1/embeddings", json={"input": "x"})
    assert elsewhere.status_code == 404
    assert elsewhere.json()["error"]["code"] == "unknown_url"


def test_with_a_token_set_only_its_bearers_are_answered(tmp_path: Path, provider: ScriptedProvider) -> None:
    served = start_serve(tmp_path, provider, MINIROOM_API_TOKEN=TOKEN)
    try:
        with pytest.raises(openai.AuthenticationError) as caught:
            client_of(served, api_key="wrong").models.list()
        assert caught.value.status_code == 401
        assert caught.value.code == "invalid_api_key"
        bare = httpx.post(f"{served.base}v1/chat/completions", json={"model": "helper", "messages": []})
        assert bare.status_code == 401
        assert "no API token" in bare.json()["error"]["message"]
        provider.script(Reply(text="Let in."))
        completion = client_of(served, api_key=TOKEN).chat.completions.create(
            model="helper", messages=[{"role": "user", "content": "hi"}]
        )
        assert completion.choices[0].message.content == "Let in."
    finally:
        served.kill()
