"""make_client honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY, checked with a tiny loopback proxy."""

from __future__ import annotations

import json

import pytest

from miniroom.llm.errors import ErrorKind
from miniroom.llm.http import make_client
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.llm.support import CannedServer, anthropic_model, collect, http_response

# What the proxy answers to a forwarded request: a whole (non-streamed) Anthropic message.
MESSAGE = {
    "type": "message",
    "role": "assistant",
    "content": [{"type": "text", "text": "via the proxy"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 3, "output_tokens": 2},
}


async def test_http_proxy_carries_plain_http_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    with CannedServer(http_response("200 OK", "application/json", json.dumps(MESSAGE).encode())) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        async with make_client() as client:
            _, done = await collect(anthropic_model("http://llm.example.invalid"), client=client)
    assert done.error is None
    assert done.message.text == "via the proxy"
    assert proxy.request_lines == ["POST http://llm.example.invalid/v1/messages HTTP/1.1"]


async def test_https_proxy_is_asked_to_connect_and_its_refusal_is_explained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with CannedServer(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n") as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        async with make_client() as client:
            _, done = await collect(anthropic_model("https://llm.example.invalid"), client=client)
    assert proxy.request_lines == ["CONNECT llm.example.invalid:443 HTTP/1.1"]
    assert done.error is not None
    assert done.error.kind is ErrorKind.CONNECTION
    assert "the proxy refused the connection to https://llm.example.invalid" in done.error.message
    assert "HTTPS_PROXY" in done.error.message


async def test_no_proxy_hosts_are_reached_directly(
    monkeypatch: pytest.MonkeyPatch, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="direct"))
    with CannedServer(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n") as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        async with make_client() as client:
            _, done = await collect(anthropic_model(provider), client=client)
    assert done.message.text == "direct"
    assert proxy.request_lines == []
