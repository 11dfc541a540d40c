"""The scripted provider, driven with raw httpx: both wire protocols, streaming and not, errors and drops."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider

NO_REPLY = "scripted provider: no reply scripted for this request"


@pytest.fixture
def provider() -> Iterator[ScriptedProvider]:
    with ScriptedProvider() as server:
        yield server


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def anthropic(client: httpx.Client, provider: ScriptedProvider, **body: Any) -> httpx.Response:
    return client.post(
        provider.url + "/v1/messages", json={"model": "claude-test", "max_tokens": 100, **body}
    )


def openai(client: httpx.Client, provider: ScriptedProvider, **body: Any) -> httpx.Response:
    return client.post(provider.openai_base_url + "/chat/completions", json={"model": "gpt-test", **body})


def sse(text: str) -> list[tuple[str | None, str]]:
    """(event name, data) for each SSE event of a complete body."""
    events = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        name, data = None, []
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        events.append((name, "\n".join(data)))
    return events


def anthropic_events(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    events = []
    for name, data in sse(response.text):
        payload = json.loads(data)
        assert name == payload["type"]  # every event is named after its data's type
        events.append(payload)
    return events


def openai_chunks(response: httpx.Response) -> list[str]:
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    events = sse(response.text)
    assert all(name is None for name, _ in events)  # OpenAI sends bare data: lines
    return [data for _, data in events]


def shape(events: list[dict[str, Any]]) -> list[str]:
    """The sequence as `type` or `type:delta.type`, for exact comparison."""
    return [
        e["type"] + (":" + e["delta"]["type"] if e["type"] == "content_block_delta" else "") for e in events
    ]


LONG_TEXT = (
    "The quick brown fox jumps over the lazy dog, and then — naïvely — naps."  # 71 characters: 3 text deltas
)
ARGS = {"path": "src/miniroom/a file.txt", "limit": 200, "nested": {"ok": True, "list": [1, 2, 3]}}


# Anthropic Messages


def test_anthropic_stream_event_sequence(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text=LONG_TEXT, thinking="Let me think.", tool_calls=[("read", ARGS), ("ls", {})]))
    response = anthropic(client, provider, stream=True, messages=[{"role": "user", "content": "hi"}])
    assert response.status_code == 200
    assert response.headers["request-id"]
    events = anthropic_events(response)
    assert shape(events) == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta:thinking_delta",
        "content_block_delta:signature_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta:text_delta",
        "content_block_delta:text_delta",
        "content_block_delta:text_delta",
        "content_block_stop",
        "content_block_start",
        *["content_block_delta:input_json_delta"] * 4,
        "content_block_stop",
        "content_block_start",
        *["content_block_delta:input_json_delta"] * 3,
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0]["message"]
    assert start["role"] == "assistant"
    assert start["content"] == []
    assert start["model"] == "claude-test"
    assert start["stop_reason"] is None
    assert set(start["usage"]) >= {"input_tokens", "output_tokens"}

    blocks: dict[int, dict[str, Any]] = {}
    for event in events:
        if event["type"] == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"], json="")
        elif event["type"] == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            else:
                block["json"] += delta["partial_json"]
    assert [b["type"] for b in blocks.values()] == ["thinking", "text", "tool_use", "tool_use"]
    assert blocks[0]["thinking"] == "Let me think."
    assert blocks[0]["signature"].startswith("sig-")
    assert blocks[1]["text"] == LONG_TEXT
    assert (blocks[2]["name"], blocks[3]["name"]) == ("read", "ls")
    assert blocks[2]["id"].startswith("toolu_")
    assert blocks[2]["id"] != blocks[3]["id"]
    assert json.loads(blocks[2]["json"]) == ARGS
    assert json.loads(blocks[3]["json"]) == {}

    delta = events[-2]
    assert delta["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert set(delta["usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    }


def test_anthropic_tool_arguments_arrive_in_fragments(
    provider: ScriptedProvider, client: httpx.Client
) -> None:
    provider.script(Reply(tool_calls=[("edit", {"old": "x" * 100, "new": "y"})]))
    events = anthropic_events(anthropic(client, provider, stream=True))
    fragments = [e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"]
    assert len([f for f in fragments if f]) >= 2
    assert all(not _parses(f) for f in fragments if f)  # no fragment is a whole document
    assert json.loads("".join(fragments)) == {"old": "x" * 100, "new": "y"}


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_anthropic_text_only_stream(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="Hi!"))
    events = anthropic_events(anthropic(client, provider, stream=True))
    assert shape(events) == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta:text_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[1]["content_block"] == {"type": "text", "text": ""}
    assert events[-2]["delta"]["stop_reason"] == "end_turn"


def test_anthropic_message_object(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(
        Reply(text="Done.", thinking="Hmm.", tool_calls=[("read", ARGS)], usage=(120, 30, 1000, 50))
    )
    response = anthropic(client, provider)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    message = response.json()
    assert message["type"] == "message"
    assert message["role"] == "assistant"
    assert message["model"] == "claude-test"
    assert message["id"].startswith("msg_")
    thinking, text, tool = message["content"]
    assert thinking["type"] == "thinking"
    assert thinking["thinking"] == "Hmm."
    assert thinking["signature"].startswith("sig-")
    assert text == {"type": "text", "text": "Done."}
    assert tool["type"] == "tool_use"
    assert tool["id"].startswith("toolu_")
    assert (tool["name"], tool["input"]) == ("read", ARGS)
    assert message["stop_reason"] == "tool_use"
    assert message["stop_sequence"] is None
    assert message["usage"] == {
        "input_tokens": 120,
        "output_tokens": 30,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 50,
    }


# OpenAI Chat Completions


def test_openai_stream_chunks_with_usage(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(
        Reply(
            text=LONG_TEXT,
            thinking="Pondering.",
            tool_calls=[("read", ARGS), ("ls", {})],
            usage=(10, 5, 3, 2),
        )
    )
    response = openai(client, provider, stream=True, stream_options={"include_usage": True})
    assert response.status_code == 200
    assert response.headers["x-request-id"]
    data = openai_chunks(response)
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "gpt-test" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    *body, usage_chunk = chunks
    assert all(c["usage"] is None for c in body)  # include_usage: null on every chunk but the last
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["prompt_tokens"] == 13  # input + cached
    assert usage_chunk["usage"]["completion_tokens"] == 5
    assert usage_chunk["usage"]["total_tokens"] == 18
    assert usage_chunk["usage"]["prompt_tokens_details"]["cached_tokens"] == 3

    assert body[0]["choices"][0]["delta"]["role"] == "assistant"
    finish = [c["choices"][0]["finish_reason"] for c in body]
    assert finish == [None] * (len(body) - 1) + ["tool_calls"]
    assert body[-1]["choices"][0]["delta"] == {}

    text, reasoning = "", ""
    calls: dict[int, dict[str, Any]] = {}
    for chunk in body:
        delta = chunk["choices"][0]["delta"]
        text += delta.get("content") or ""
        reasoning += delta.get("reasoning_content") or ""
        for call in delta.get("tool_calls", []):
            entry: dict[str, Any] = calls.setdefault(
                call["index"], {"id": None, "name": None, "arguments": "", "fragments": 0}
            )
            if "id" in call:
                assert call["type"] == "function"
                entry["id"], entry["name"] = call["id"], call["function"]["name"]
            if call["function"].get("arguments"):
                entry["fragments"] += 1
            entry["arguments"] += call["function"].get("arguments", "")
    assert text == LONG_TEXT
    assert reasoning == "Pondering."
    assert sorted(calls) == [0, 1]
    assert calls[0]["name"] == "read"
    assert calls[0]["id"].startswith("call_")
    assert calls[0]["id"] != calls[1]["id"]
    assert json.loads(calls[0]["arguments"]) == ARGS
    assert json.loads(calls[1]["arguments"]) == {}
    assert calls[0]["fragments"] >= 2
    assert calls[1]["fragments"] >= 2


def test_openai_stream_without_usage(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="Hi!"))
    data = openai_chunks(openai(client, provider, stream=True))
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    assert [c["choices"][0]["delta"] for c in chunks] == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "Hi!"},
        {},
    ]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert all("usage" not in c for c in chunks)


def test_openai_completion_object(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="", thinking="Hmm.", tool_calls=[("read", ARGS)], usage=(100, 20, 50, 7)))
    response = openai(client, provider)
    assert response.status_code == 200
    completion = response.json()
    assert completion["object"] == "chat.completion"
    assert completion["id"].startswith("chatcmpl-")
    (choice,) = completion["choices"]
    assert choice["finish_reason"] == "tool_calls"
    message = choice["message"]
    assert message["role"] == "assistant"
    assert message["content"] is None
    assert message["reasoning_content"] == "Hmm."
    (call,) = message["tool_calls"]
    assert call["id"].startswith("call_")
    assert call["type"] == "function"
    assert call["function"]["name"] == "read"
    assert json.loads(call["function"]["arguments"]) == ARGS
    usage = completion["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (150, 20, 170)
    assert usage["prompt_tokens_details"]["cached_tokens"] == 50


def test_usage_estimate(provider: ScriptedProvider, client: httpx.Client) -> None:
    reply = Reply(text="x" * 41, thinking="y" * 20, tool_calls=[("read", {"path": "a"})])
    provider.script(reply, reply)
    response = anthropic(client, provider, messages=[{"role": "user", "content": "z" * 400}])
    request_text = response.request.content.decode()
    produced = 41 + 20 + len(json.dumps({"path": "a"}))
    usage = response.json()["usage"]
    assert usage["input_tokens"] == len(request_text) // 4
    assert usage["output_tokens"] == produced // 4
    assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0
    response = openai(client, provider, messages=[{"role": "user", "content": "z" * 400}])
    usage = response.json()["usage"]
    assert usage["prompt_tokens"] == len(response.request.content.decode()) // 4
    assert usage["completion_tokens"] == produced // 4


@pytest.mark.parametrize(
    ("stop_reason", "anthropic_word", "openai_word"),
    [
        ("max_tokens", "max_tokens", "length"),
        ("length", "max_tokens", "length"),
        ("end_turn", "end_turn", "stop"),
        ("stop", "end_turn", "stop"),
    ],
)
def test_stop_reason_override(
    provider: ScriptedProvider, client: httpx.Client, stop_reason: str, anthropic_word: str, openai_word: str
) -> None:
    provider.script(*[Reply(text="cut", stop_reason=stop_reason)] * 4)
    assert anthropic(client, provider).json()["stop_reason"] == anthropic_word
    assert openai(client, provider).json()["choices"][0]["finish_reason"] == openai_word
    assert (
        anthropic_events(anthropic(client, provider, stream=True))[-2]["delta"]["stop_reason"]
        == anthropic_word
    )
    last = json.loads(openai_chunks(openai(client, provider, stream=True))[-2])
    assert last["choices"][0]["finish_reason"] == openai_word


# Errors


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (429, "rate_limit_error"),
        (529, "overloaded_error"),
        (500, "api_error"),
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (429, "insufficient_quota"),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_error_responses(
    provider: ScriptedProvider, client: httpx.Client, status: int, error_type: str, stream: bool
) -> None:
    reply = Reply.error(status, error_type, "scripted failure")
    reply.headers = {"retry-after": "7"}
    provider.script(reply, reply)
    response = anthropic(client, provider, stream=stream)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"  # JSON, even for a stream request
    assert response.headers["retry-after"] == "7"
    body = response.json()
    assert body["type"] == "error"
    assert body["error"] == {"type": error_type, "message": "scripted failure"}

    response = openai(client, provider, stream=stream)
    assert response.status_code == status
    assert response.headers["retry-after"] == "7"
    error = response.json()["error"]
    assert (error["type"], error["message"]) == (error_type, "scripted failure")


def test_error_type_defaults_from_status(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(status=529), Reply(status=503))
    response = anthropic(client, provider)
    assert (response.status_code, response.json()["error"]["type"]) == (529, "overloaded_error")
    response = openai(client, provider)
    assert (response.status_code, response.json()["error"]["type"]) == (503, "server_error")


def test_anthropic_mid_stream_error(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="Partial", error_type="overloaded_error", error_message="Overloaded"))
    response = anthropic(client, provider, stream=True)
    assert response.status_code == 200
    events = anthropic_events(response)
    assert events[0]["type"] == "message_start"
    assert events[-1] == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert "message_stop" not in shape(events)
    assert "message_delta" not in shape(events)


def test_openai_mid_stream_error(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="Partial", error_type="server_error", error_message="boom"))
    data = openai_chunks(openai(client, provider, stream=True))
    assert "[DONE]" not in data
    error = json.loads(data[-1])["error"]
    assert (error["type"], error["message"]) == ("server_error", "boom")
    assert json.loads(data[1])["choices"][0]["delta"] == {"content": "Partial"}


@pytest.mark.parametrize("protocol", ["anthropic", "openai"])
def test_drop_after_events_cuts_the_connection(
    provider: ScriptedProvider, client: httpx.Client, protocol: str
) -> None:
    provider.script(Reply(text="a" * 200, drop_after_events=3), Reply(text="after"))
    url = (
        provider.url + "/v1/messages"
        if protocol == "anthropic"
        else provider.openai_base_url + "/chat/completions"
    )
    received: list[str] = []

    def read_stream() -> None:
        with client.stream("POST", url, json={"model": "m", "stream": True}) as response:
            assert response.status_code == 200
            received.extend(line for line in response.iter_lines() if line.startswith("data: "))

    with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
        read_stream()
    assert len(received) == 3
    # The server is fine afterwards; the next request gets the next reply.
    follow_up = anthropic(client, provider) if protocol == "anthropic" else openai(client, provider)
    assert follow_up.status_code == 200
    assert "after" in follow_up.text


def _endpoint(provider: ScriptedProvider, protocol: str) -> str:
    if protocol == "anthropic":
        return provider.url + "/v1/messages"
    return provider.openai_base_url + "/chat/completions"


@pytest.mark.parametrize("protocol", ["anthropic", "openai"])
def test_a_silent_reply_sends_nothing_until_the_client_leaves(
    provider: ScriptedProvider, protocol: str
) -> None:
    provider.script(Reply(text="never", silent=True), Reply(text="after"))
    with httpx.Client(timeout=httpx.Timeout(10, read=0.3)) as impatient:
        with pytest.raises(httpx.ReadTimeout):
            impatient.post(_endpoint(provider, protocol), json={"model": "m", "stream": True})
        follow_up = impatient.post(_endpoint(provider, protocol), json={"model": "m"})
    assert "after" in follow_up.text


@pytest.mark.parametrize(
    ("protocol", "opening", "ping"),
    [("anthropic", "event: message_start", "event: ping"), ("openai", 'data: {"id"', ": keep-alive")],
)
def test_ping_every_sends_the_opening_event_then_only_pings(
    provider: ScriptedProvider, client: httpx.Client, protocol: str, opening: str, ping: str
) -> None:
    provider.script(Reply(text="never sent", ping_every=0.01), Reply(text="after"))
    lines: list[str] = []
    with client.stream(
        "POST", _endpoint(provider, protocol), json={"model": "m", "stream": True}
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            lines.append(line)
            if sum(line.startswith(ping) for line in lines) == 3:
                break
    events = [line for line in lines if line and not line.startswith('data: {"type":"ping')]
    assert events[0].startswith(opening)
    assert "never sent" not in "".join(lines)
    assert all(line.startswith(ping) for line in events[2 if protocol == "anthropic" else 1 :])
    assert (
        "after" in (anthropic(client, provider) if protocol == "anthropic" else openai(client, provider)).text
    )


def test_drop_without_stream_gives_no_response(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="never", drop_after_events=0))
    with pytest.raises(httpx.RemoteProtocolError):
        anthropic(client, provider)


def test_empty_queue_is_a_loud_500(provider: ScriptedProvider, client: httpx.Client) -> None:
    response = anthropic(client, provider, stream=True)
    assert response.status_code == 500
    assert response.json()["error"]["message"] == NO_REPLY
    response = openai(client, provider)
    assert response.status_code == 500
    assert response.json()["error"]["message"] == NO_REPLY
    assert len(provider.requests) == 2  # recorded all the same


def test_unknown_path_and_bad_body(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="kept"))
    assert client.get(provider.url + "/v1/messages").status_code == 404
    assert client.post(provider.url + "/v1/complete", json={}).status_code == 404
    response = client.post(provider.url + "/v1/messages", content=b"{not json")
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert provider.requests == []
    assert provider.pending_replies == 1  # nothing consumed the scripted reply
    assert anthropic(client, provider).json()["content"][0]["text"] == "kept"


# Queue, recording, concurrency


def test_one_fifo_queue_for_both_endpoints(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="first"))
    provider.script(Reply(text="second"), Reply(text="third"))
    assert openai(client, provider).json()["choices"][0]["message"]["content"] == "first"
    assert anthropic(client, provider).json()["content"][0]["text"] == "second"
    assert openai(client, provider).json()["choices"][0]["message"]["content"] == "third"
    assert provider.pending_replies == 0


def test_repeat_serves_a_cycle_once_the_queue_is_empty(
    provider: ScriptedProvider, client: httpx.Client
) -> None:
    provider.script(Reply(text="once"))
    provider.repeat(Reply(text="a"), Reply(text="b"))
    texts = [anthropic(client, provider).json()["content"][0]["text"] for _ in range(4)]
    assert texts == ["once", "a", "b", "a"]


def test_requests_are_recorded(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script(Reply(text="a"), Reply(text="b"))
    client.post(
        provider.url + "/v1/messages?beta=true",
        json={"model": "claude-test", "messages": [{"role": "user", "content": "héllo"}]},
        headers={"X-Api-Key": "sk-test", "Anthropic-Version": "2023-06-01"},
    )
    openai(client, provider, stream=True, messages=[{"role": "user", "content": "yo"}])
    first, second = provider.wait_for_requests(2)
    assert first == RecordedRequest(
        protocol="anthropic-messages",
        path="/v1/messages?beta=true",
        headers=first.headers,
        body={"model": "claude-test", "messages": [{"role": "user", "content": "héllo"}]},
    )
    assert first.headers["x-api-key"] == "sk-test"
    assert first.headers["anthropic-version"] == "2023-06-01"
    assert all(name == name.lower() for name in first.headers)
    assert second.protocol == "openai-completions"
    assert second.path == "/v1/chat/completions"
    assert second.body["stream"] is True
    snapshot = provider.requests
    snapshot.clear()
    assert len(provider.requests) == 2  # a copy, not the live list


def test_wait_for_requests_times_out(provider: ScriptedProvider) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="received 0"):
        provider.wait_for_requests(1, timeout=0.2)
    assert time.monotonic() - started < 2


def test_slow_streams_run_concurrently(provider: ScriptedProvider) -> None:
    """Two streams that never end by themselves: each goes on after the other has begun, so neither waits."""
    provider.script(*(Reply(text="z" * 32, delay=0.01, endless=True) for _ in range(2)))
    begun = {"anthropic": threading.Event(), "openai": threading.Event()}
    overlapped: dict[str, bool] = {}
    stop = threading.Event()

    def run(name: str, other: str, url: str) -> None:
        with (
            httpx.Client(timeout=30) as c,
            c.stream("POST", url, json={"model": "m", "stream": True}) as response,
        ):
            for chunk in response.iter_text():
                if "zzzz" in chunk:
                    begun[name].set()
                if begun[name].is_set() and begun[other].is_set():  # a piece after the other stream began
                    overlapped[name] = True
                if overlapped.get(name) or stop.is_set():
                    return

    threads = [
        threading.Thread(target=run, args=("anthropic", "openai", provider.url + "/v1/messages")),
        threading.Thread(
            target=run, args=("openai", "anthropic", provider.openai_base_url + "/chat/completions")
        ),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    stop.set()
    assert overlapped == {"anthropic": True, "openai": True}


def test_keep_alive_serves_several_requests_on_one_connection(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="one"), Reply(text="two", tool_calls=[("t", {"a": 1})]))
    host, port = provider.url.removeprefix("http://").split(":")
    body = json.dumps({"model": "m", "stream": True}).encode()
    request = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        for expected in (b"one", b"two"):
            sock.sendall(request)
            data = b""
            while not data.endswith(b"0\r\n\r\n"):
                data += sock.recv(65536)
            assert data.startswith(b"HTTP/1.1 200 OK\r\n")
            assert b"transfer-encoding: chunked" in data
            assert expected in data
            assert b"event: message_stop" in data


def test_urls() -> None:
    provider = ScriptedProvider()
    with pytest.raises(RuntimeError):
        _ = provider.url
    with provider:
        assert provider.url.startswith("http://127.0.0.1:")
        assert provider.openai_base_url == provider.url + "/v1"
    provider.stop()  # idempotent


def test_stop_with_a_stream_in_flight() -> None:
    provider = ScriptedProvider().start()
    provider.script(Reply(text="x" * 320, delay=1))
    opened = threading.Event()

    def run() -> None:
        try:
            with (
                httpx.Client(timeout=10) as c,
                c.stream("POST", provider.url + "/v1/messages", json={"stream": True}) as response,
            ):
                opened.set()
                response.read()
        except httpx.HTTPError:
            pass

    thread = threading.Thread(target=run)
    thread.start()
    assert opened.wait(5)
    started = time.monotonic()
    provider.stop()
    assert time.monotonic() - started < 2
    thread.join(timeout=5)
    assert not thread.is_alive()


# Command line


def test_reply_from_dict() -> None:
    reply = Reply.from_dict({"text": "hi", "tool_calls": [["read", {"path": "a"}]], "usage": [1, 2, 3, 4]})
    assert reply == Reply(text="hi", tool_calls=[("read", {"path": "a"})], usage=(1, 2, 3, 4))
    with pytest.raises(ValueError, match="colour"):
        Reply.from_dict({"colour": "red"})


def test_command_line_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(
        json.dumps([{"text": "from a file"}, {"status": 429, "error_type": "rate_limit_error"}])
    )
    command = [
        sys.executable,
        "-m",
        "miniroom.testing.scripted_provider",
        "--port",
        "0",
        "--script",
        str(script),
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:")
            with httpx.Client(timeout=5) as c:
                response = c.post(url + "/v1/chat/completions", json={"model": "m"})
                assert response.json()["choices"][0]["message"]["content"] == "from a file"
                assert c.post(url + "/v1/messages", json={"model": "m"}).status_code == 429
                assert c.post(url + "/v1/messages", json={"model": "m"}).status_code == 500
        finally:
            process.terminate()
        assert process.wait(timeout=5) == 0  # SIGTERM ends it cleanly


def test_fragment_sets_the_size_of_the_streamed_pieces(
    provider: ScriptedProvider, client: httpx.Client
) -> None:
    provider.script(Reply(text="abcdefgh", fragment=3))
    response = anthropic(client, provider, stream=True)
    deltas = [json.loads(data)["delta"] for name, data in sse(response.text) if name == "content_block_delta"]
    assert [delta["text"] for delta in deltas] == ["abc", "def", "gh"]


def _long_anthropic_body(turns: int) -> dict[str, Any]:
    """A conversation that grows by a turn at a time, with cache marks where miniroom puts them: the
    system prompt and the newest message."""
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        if messages:
            messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}]})
        messages.append(
            {"role": "user", "content": [{"type": "text", "text": f"question {n} " + "q" * 4_000}]}
        )
    messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    system = [{"type": "text", "text": "s" * 5_000, "cache_control": {"type": "ephemeral"}}]
    return {"system": system, "messages": messages}


def test_anthropic_reads_the_prefix_an_earlier_request_wrote_at_its_breakpoint(
    provider: ScriptedProvider, client: httpx.Client
) -> None:
    provider.script(Reply(text="a"), Reply(text="b"))
    first = anthropic(client, provider, **_long_anthropic_body(3)).json()["usage"]
    assert first["cache_read_input_tokens"] == 0
    assert first["cache_creation_input_tokens"] > 4_000  # the whole prompt up to its last mark
    second_body = _long_anthropic_body(4)  # the same conversation, one turn longer
    response = anthropic(client, provider, **second_body)
    second = response.json()["usage"]
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    total = len(response.request.content) // 4
    assert (
        second["input_tokens"] + second["cache_read_input_tokens"] + second["cache_creation_input_tokens"]
        == total
    )


def test_anthropic_caches_nothing_without_a_breakpoint(
    provider: ScriptedProvider, client: httpx.Client
) -> None:
    provider.script(Reply(text="a"), Reply(text="b"))
    body = {"messages": [{"role": "user", "content": "q" * 20_000}]}
    anthropic(client, provider, **body)
    usage = anthropic(client, provider, **body).json()["usage"]
    assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0


def test_openai_caches_any_earlier_prefix_in_steps_of_128(
    provider: ScriptedProvider, client: httpx.Client
) -> None:
    provider.script(Reply(text="a"), Reply(text="b"), Reply(text="c"))
    first = [{"role": "user", "content": "q" * 8_000}]
    assert (
        openai(client, provider, messages=first).json()["usage"]["prompt_tokens_details"]["cached_tokens"]
        == 0
    )
    longer = [*first, {"role": "assistant", "content": "a"}, {"role": "user", "content": "more"}]
    usage = openai(client, provider, messages=longer).json()["usage"]
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    assert cached >= 1_920
    assert cached % 128 == 0
    assert usage["prompt_tokens"] > cached  # the new part is not cached
    other = [{"role": "user", "content": "r" * 8_000}]
    assert (
        openai(client, provider, messages=other).json()["usage"]["prompt_tokens_details"]["cached_tokens"]
        == 0
    )


def test_a_request_over_the_window_is_refused_in_each_vendors_words(client: httpx.Client) -> None:
    with ScriptedProvider(context_window=1_000) as provider:
        provider.script(Reply(text="served to the short one"))
        too_long = [{"role": "user", "content": "z" * 8_000}]
        response = anthropic(client, provider, messages=too_long)
        assert response.status_code == 400
        tokens = len(response.request.content) // 4
        assert response.json()["error"] == {
            "type": "invalid_request_error",
            "message": f"prompt is too long: {tokens} tokens > 1000 maximum",
        }
        response = openai(client, provider, messages=too_long)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "context_length_exceeded"
        assert error["type"] == "invalid_request_error"
        assert "maximum context length is 1000 tokens" in error["message"]
        assert provider.refused == 2
        assert len(provider.requests) == 2  # recorded, but the scripted reply waits for a request that fits
        short = anthropic(client, provider, messages=[{"role": "user", "content": "hi"}])
        assert short.json()["content"][0]["text"] == "served to the short one"


def test_a_repeating_route_never_empties(provider: ScriptedProvider, client: httpx.Client) -> None:
    provider.script_for("summarize", Reply(text="a summary"), repeat=True)
    provider.script(Reply(text="other"))
    for _ in range(3):
        text = anthropic(client, provider, messages=[{"role": "user", "content": "summarize it"}]).json()
        assert text["content"][0]["text"] == "a summary"
    assert provider.pending_replies == 1


@pytest.mark.parametrize("protocol", ["anthropic", "openai"])
def test_endless_streams_the_text_again_and_again_until_the_client_leaves(
    provider: ScriptedProvider, client: httpx.Client, protocol: str
) -> None:
    provider.script(Reply(text="on and ", endless=True), Reply(text="after"))
    lines: list[str] = []
    with client.stream(
        "POST", _endpoint(provider, protocol), json={"model": "m", "stream": True}
    ) as response:
        for line in response.iter_lines():
            lines.append(line)
            if sum("on and " in line for line in lines) == 50:
                break
    assert (
        "after" in (anthropic(client, provider) if protocol == "anthropic" else openai(client, provider)).text
    )
