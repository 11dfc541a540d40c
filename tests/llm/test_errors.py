"""Every way a request fails ends in one StreamDone with a typed ProviderFailure and a message for people."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
import trustme

from miniroom.config.tls import trusted_tls_context
from miniroom.engine.tool import ToolContext, run_tool_call
from miniroom.llm.errors import ErrorKind
from miniroom.llm.events import StreamDone, TextDelta, ToolCallEnded, ToolCallStarted
from miniroom.llm.http import failure_from_status, retry_after_seconds
from miniroom.llm.messages import TextContent, ToolCall
from miniroom.llm.model import Model
from miniroom.llm.stream import RequestOptions
from miniroom.llm.wire import parse_tool_arguments
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.tools.read import ReadTool
from tests.llm.support import (
    SECRET,
    CannedServer,
    anthropic_model,
    closed_port,
    collect,
    http_response,
    openai_model,
)
from tests.webtools.servers import Answer, Running, company_tls, serve, trust_defaults_only, trusting

ModelFactory = Callable[..., Model]
BOTH = pytest.mark.parametrize("make_model", [anthropic_model, openai_model], ids=["anthropic", "openai"])


def assert_failed(done: StreamDone, kind: ErrorKind, *fragments: str) -> str:
    """The reply failed with `kind`; its message names every fragment and never the key."""
    assert done.error is not None, done.message
    assert done.error.kind is kind, done.error
    assert done.message.stop_reason == "error"
    assert done.message.error_message == str(done.error)
    for fragment in fragments:
        assert fragment in done.error.message, done.error.message
    assert SECRET not in done.error.message
    return done.error.message


HTTP_ERRORS = [
    (
        Reply.error(429, "rate_limit_error", "slow down"),
        ErrorKind.RATE_LIMIT,
        ["rate limit reached: slow down"],
    ),
    (Reply.error(529, "overloaded_error", "Overloaded"), ErrorKind.OVERLOADED, ["is overloaded: Overloaded"]),
    (Reply.error(503, "unavailable", "try later"), ErrorKind.OVERLOADED, ["overloaded: try later"]),
    (Reply.error(500, "api_error", "boom"), ErrorKind.SERVER, ["server error: boom"]),
    (Reply.error(502, "bad_gateway", "upstream died"), ErrorKind.SERVER, ["upstream died"]),
    (
        Reply.error(401, "authentication_error", "invalid x-api-key"),
        ErrorKind.AUTH,
        ["invalid x-api-key", "_API_KEY"],
    ),
    (
        Reply.error(403, "permission_error", "no access to model"),
        ErrorKind.AUTH,
        ["no access", "API key variable"],
    ),
    (Reply.error(402, "billing_error", "payment required"), ErrorKind.QUOTA, ["out of quota or credit"]),
    (  # the reason's own full stop is not doubled
        Reply.error(400, "invalid_request_error", "Your credit balance is too low. See details."),
        ErrorKind.QUOTA,
        ["balance is too low. See details. Check its plan"],
    ),
    (
        Reply.error(429, "insufficient_quota", "You exceeded your current quota"),
        ErrorKind.QUOTA,
        ["exceeded your current quota", "billing"],
    ),
    (
        Reply.error(400, "invalid_request_error", "Your credit balance is too low"),
        ErrorKind.QUOTA,
        ["credit balance is too low"],
    ),
    (
        Reply.error(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
        ErrorKind.CONTEXT_OVERFLOW,
        ["too long for", "context window", "210000 tokens", "Compact"],
    ),
    (
        Reply.error(400, "context_length_exceeded", "This model's maximum context length is 128000 tokens"),
        ErrorKind.CONTEXT_OVERFLOW,
        ["maximum context length is 128000"],
    ),
    (
        Reply.error(413, "request_too_large", "too many tokens in the request"),
        ErrorKind.CONTEXT_OVERFLOW,
        ["too many tokens"],
    ),
    (
        Reply.error(400, "invalid_request_error", "tools.0.name: String should match pattern"),
        ErrorKind.BAD_REQUEST,
        ["rejected the request: tools.0.name: String should match pattern"],
    ),
    (
        Reply.error(404, "not_found_error", "model: nope"),
        ErrorKind.REJECTED,
        ["model: nope", "(404 Not Found)", "Check the model id", "not retried"],
    ),
    (
        Reply.error(405, "invalid_request_error", "method not allowed"),
        ErrorKind.REJECTED,
        ["(405 Method Not Allowed)", "check the base URL"],
    ),
    (
        Reply.error(413, "request_too_large", "request entity too large"),
        ErrorKind.REJECTED,
        ["(413 Request Entity Too Large)", "larger than the server takes"],
    ),
    (
        Reply.error(422, "invalid_request_error", "unprocessable"),
        ErrorKind.REJECTED,
        ["(422 Unprocessable Entity)", "cannot process the request"],
    ),
    (Reply.error(409, "conflict", "busy elsewhere"), ErrorKind.REJECTED, ["(409 Conflict)", "not retried"]),
    (Reply.error(408, "timeout", "request timeout"), ErrorKind.TIMEOUT, ["gave up waiting"]),
]


@BOTH
@pytest.mark.parametrize(
    ("reply", "kind", "fragments"), HTTP_ERRORS, ids=[f"{r.status}-{k.value}" for r, k, _ in HTTP_ERRORS]
)
async def test_http_errors_are_classified_with_the_providers_reason(
    provider: ScriptedProvider, make_model: ModelFactory, reply: Reply, kind: ErrorKind, fragments: list[str]
) -> None:
    provider.script(reply)
    events, done = await collect(make_model(provider))
    assert events == []
    assert_failed(done, kind, *fragments)
    assert done.error is not None
    assert done.error.status == reply.status
    assert str(done.error).startswith(f"HTTP {reply.status}: ")
    if kind is ErrorKind.REJECTED:  # where it was sent and for which model, so a typo shows
        model = make_model(provider)
        assert f"refused the request to {model.base_url}/" in done.error.message
        assert f"for model {model.id}" in done.error.message


@BOTH
@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after-ms": "2500"}, 2.5),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
    ids=["seconds", "milliseconds", "unreadable", "none"],
)
async def test_a_retry_after_header_is_read(
    provider: ScriptedProvider, make_model: ModelFactory, headers: dict[str, str], seconds: float | None
) -> None:
    provider.script(Reply(status=429, error_message="slow down", headers=headers))
    _, done = await collect(make_model(provider))
    assert done.error is not None
    assert done.error.retry_after == seconds


def test_a_retry_after_date_is_the_time_until_then() -> None:
    later = datetime.now(UTC) + timedelta(seconds=120)
    seconds = retry_after_seconds({"retry-after": format_datetime(later, usegmt=True)})
    assert seconds is not None
    assert 100 < seconds <= 120
    past = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    assert retry_after_seconds({"retry-after": past}) == 0


@BOTH
async def test_an_unknown_host_fails_as_such_and_is_not_retryable(make_model: ModelFactory) -> None:
    _, done = await collect(make_model("http://no-such-host.invalid"))
    message = assert_failed(done, ErrorKind.UNKNOWN_HOST, "the host no-such-host.invalid of", "typo")
    assert done.error is not None
    assert not done.error.retryable, message


@BOTH
async def test_a_missing_key_is_named_as_such(provider: ScriptedProvider, make_model: ModelFactory) -> None:
    provider.script(Reply.error(401, "authentication_error", "x-api-key header is required"))
    _, done = await collect(make_model(provider, api_key=""))
    message = assert_failed(done, ErrorKind.AUTH, "no API key is set")
    assert "_API_KEY" in message


@BOTH
@pytest.mark.parametrize(
    ("error_type", "kind"),
    [
        ("overloaded_error", ErrorKind.OVERLOADED),
        ("rate_limit_error", ErrorKind.RATE_LIMIT),
        ("api_error", ErrorKind.SERVER),
    ],
)
async def test_an_error_inside_the_stream_keeps_the_partial_reply(
    provider: ScriptedProvider, make_model: ModelFactory, error_type: str, kind: ErrorKind
) -> None:
    provider.script(Reply(text="half an answer", error_type=error_type, error_message="stream trouble"))
    events, done = await collect(make_model(provider))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "half an answer"
    assert_failed(done, kind, "stream trouble")
    assert done.error is not None
    assert done.error.status is None  # the HTTP status was 200
    assert done.message.content == [TextContent("half an answer")]


@BOTH
async def test_a_refused_connection_names_the_url_and_is_retried_briefly(make_model: ModelFactory) -> None:
    base = f"http://127.0.0.1:{closed_port()}"
    model = make_model(base if make_model is anthropic_model else base + "/v1")
    _, done = await collect(model)
    assert_failed(
        done, ErrorKind.REFUSED, f"{model.base_url} refused the connection", "nothing listens", "base URL"
    )
    assert done.error is not None
    assert done.error.retryable  # a few times only: see RetryPolicy


@BOTH
async def test_a_base_url_without_scheme_says_how_to_fix_it(make_model: ModelFactory) -> None:
    _, done = await collect(make_model("localhost:8080"))
    assert_failed(done, ErrorKind.SETTINGS, "base URL localhost:8080 must start with http:// or https://")


@BOTH
async def test_a_connection_dropped_mid_stream_keeps_what_arrived(
    provider: ScriptedProvider, make_model: ModelFactory
) -> None:
    provider.script(Reply(text="x" * 200, drop_after_events=4))
    model = make_model(provider)
    events, done = await collect(model)
    assert any(isinstance(event, TextDelta) for event in events)
    assert_failed(done, ErrorKind.CONNECTION, model.base_url, "incomplete")
    assert done.message.text
    assert done.message.text in "x" * 200


@BOTH
async def test_a_connection_closed_without_a_response_is_a_connection_error(
    provider: ScriptedProvider, make_model: ModelFactory
) -> None:
    provider.script(Reply(text="never sent", drop_after_events=0))
    _, done = await collect(make_model(provider), options=RequestOptions(stream=False))
    assert_failed(done, ErrorKind.CONNECTION, make_model(provider).base_url)


async def test_a_tool_call_cut_off_mid_arguments_is_dropped(provider: ScriptedProvider) -> None:
    # message_start, content_block_start, ping, the empty delta, then one fragment of the arguments
    provider.script(Reply(text="", tool_calls=[("bash", {"command": "rm -rf build"})], drop_after_events=5))
    events, done = await collect(anthropic_model(provider))
    assert ToolCallStarted("toolu_01", "bash") in events
    assert not any(isinstance(event, ToolCallEnded) for event in events)
    assert_failed(done, ErrorKind.CONNECTION)
    assert done.message.tool_calls == []


@BOTH
async def test_a_server_that_never_answers_fails_at_the_first_byte_timeout(
    provider: ScriptedProvider, make_model: ModelFactory
) -> None:
    provider.script(Reply(text="never", silent=True))
    model = make_model(provider)
    _, done = await collect(model, options=RequestOptions(first_byte_timeout=0.3))
    assert_failed(
        done, ErrorKind.TIMEOUT, f"{model.base_url} sent no response within 0.3 s", "firstByteTimeout"
    )
    assert done.error is not None
    assert done.error.retryable


@BOTH
async def test_a_stream_of_only_pings_fails_at_the_idle_timeout(
    provider: ScriptedProvider, make_model: ModelFactory
) -> None:
    provider.script(Reply(text="never", ping_every=0.02))  # pings far more often than the idle timeout
    _, done = await collect(make_model(provider), options=RequestOptions(idle_timeout=0.5))
    assert_failed(done, ErrorKind.TIMEOUT, "sent no content for 0.5 s", "pings do not count", "idleTimeout")
    assert len(provider.requests) == 1


@BOTH
async def test_a_reply_that_stalls_mid_way_fails_at_the_idle_timeout(
    provider: ScriptedProvider, make_model: ModelFactory
) -> None:
    provider.script(Reply(text="slow", delay=1.0))
    _, done = await collect(make_model(provider), options=RequestOptions(idle_timeout=0.2))
    assert_failed(done, ErrorKind.TIMEOUT, "sent no content for 0.2 s")


@pytest.mark.slow  # seconds by design: longer than the timeout, with every gap well short of it
@BOTH
async def test_content_restarts_the_idle_timeout(
    provider: ScriptedProvider, make_model: ModelFactory
) -> None:
    # About 30 events 0.1 s apart: the whole reply takes three times the idle timeout, no gap comes near it.
    provider.script(Reply(text="y" * 800, delay=0.1))
    _, done = await collect(make_model(provider), options=RequestOptions(idle_timeout=1.0))
    assert done.error is None
    assert done.message.text == "y" * 800


SSE = "text/event-stream"


@pytest.mark.parametrize(
    ("content_type", "body", "fragment"),
    [
        (SSE, b'event: message_start\ndata: {"type": "message_start", "mess\n\n', "JSONDecodeError"),
        (SSE, b'event: content_block_delta\ndata: {"type": "content_block_delta"}\n\n', "KeyError"),
        ("application/json", b"<html>welcome to the captive portal</html>", "captive portal"),
    ],
    ids=["cut-json", "missing-field", "html"],
)
async def test_a_reply_that_is_not_the_protocol_is_a_protocol_error(
    content_type: str, body: bytes, fragment: str
) -> None:
    with CannedServer(http_response("200 OK", content_type, body)) as server:
        _, done = await collect(anthropic_model(server.url))
    assert_failed(done, ErrorKind.PROTOCOL, f"could not understand the reply from {server.url}", fragment)


async def test_a_non_json_error_page_still_gives_the_status_and_text() -> None:
    page = http_response("502 Bad Gateway", "text/html", b"<html>Bad gateway from nginx</html>")
    with CannedServer(page) as server:
        _, done = await collect(openai_model(server.url + "/v1"))
    assert_failed(done, ErrorKind.SERVER, "Bad gateway from nginx")


async def test_a_stream_that_ends_without_its_end_marker_is_incomplete() -> None:
    chunk = b'data: {"choices": [{"index": 0, "delta": {"content": "hel"}}]}\n\n'
    with CannedServer(http_response("200 OK", SSE, chunk)) as server:
        events, done = await collect(openai_model(server.url + "/v1"))
    assert events == [TextDelta("hel")]
    assert_failed(done, ErrorKind.CONNECTION, "closed before the reply was complete")


async def test_invalid_tool_argument_json_is_kept_raw_not_raised() -> None:
    stream = (
        b'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_9", '
        b'"function": {"name": "bash", "arguments": "{\\"command\\": \\"ls"}}]}}]}\n\n'
        b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    with CannedServer(http_response("200 OK", SSE, stream)) as server:
        _, done = await collect(openai_model(server.url + "/v1"))
    assert done.error is None
    assert done.message.tool_calls == [ToolCall("call_9", "bash", {"_invalid_json": '{"command": "ls'})]


@pytest.mark.parametrize("depth", [101, 300, 100_000], ids=["past-the-limit", "past-orjson", "past-python"])
async def test_deeply_nested_tool_arguments_are_a_clear_tool_error(tmp_path: Path, depth: int) -> None:
    arguments = '{"path": ' + "[" * depth + "]" * depth + "}"
    stream = (
        b'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_9", '
        b'"function": {"name": "read", "arguments": "'
        + arguments.replace('"', '\\"').encode()
        + b'"}}]}}]}\n\n'
        b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    with CannedServer(http_response("200 OK", SSE, stream)) as server:
        _, done = await collect(openai_model(server.url + "/v1"))
    assert done.error is None
    (call,) = done.message.tool_calls
    result = await run_tool_call(ReadTool(), call, ToolContext(tmp_path), ["read"])
    assert result.is_error
    assert result.content[0] == TextContent(
        "The arguments of this read call nest lists or objects deeper than 100 levels, more than any tool "
        f"takes: {arguments[:500]}"
    )


def test_arguments_100_levels_deep_are_still_taken() -> None:
    arguments = '{"a": ' + "[" * 99 + "]" * 99 + "}"
    assert parse_tool_arguments(arguments) == json.loads(arguments)


@pytest.mark.parametrize(
    ("make_model", "provider_id", "variable"),
    [
        (anthropic_model, "anthropic", "ANTHROPIC_API_KEY"),
        (openai_model, "openai", "OPENAI_API_KEY"),
        (openai_model, "acme-labs", "ACME_LABS_API_KEY"),
    ],
)
async def test_an_auth_error_names_the_key_variable_of_the_provider(
    provider: ScriptedProvider, make_model: ModelFactory, provider_id: str, variable: str
) -> None:
    provider.script(Reply.error(401, "authentication_error", "bad key"))
    _, done = await collect(make_model(provider, provider=provider_id))
    assert_failed(done, ErrorKind.AUTH, f"Check the API key variable {variable} (or MINI_API_KEY")


def test_an_html_error_page_reads_as_one_line_of_its_words() -> None:
    page = (
        b"<!DOCTYPE HTML>\n<html><head><title>Error response</title><style>p {x: 1}</style></head>\n"
        b"<body>\n  <h1>Error response</h1>\n"
        b"  <p>Message: Unsupported method (&#x27;POST&#x27;).</p>\n</body></html>\n"
    )
    failure = failure_from_status(anthropic_model("http://127.0.0.1:9"), "http://127.0.0.1:9", 501, page, {})
    words = "server error: Error response Error response Message: Unsupported method ('POST')."
    assert words in failure.message
    assert "\n" not in failure.message
    assert "<" not in failure.message


@pytest.fixture
def company_ca_site() -> Iterator[tuple[Running, trustme.CA]]:
    """An HTTPS server whose certificate a local authority signed, one no default store knows."""
    served, authority = company_tls()
    with serve(lambda seen: Answer.json({"error": {"message": "no such route"}}, 404), served) as site:
        yield site, authority
    trusted_tls_context.cache_clear()


async def test_an_untrusted_certificate_says_how_to_trust_its_authority(
    company_ca_site: tuple[Running, trustme.CA], monkeypatch: pytest.MonkeyPatch
) -> None:
    site, authority = company_ca_site
    trust_defaults_only(monkeypatch)
    _, done = await collect(anthropic_model(site.url))
    assert_failed(
        done, ErrorKind.CONNECTION, f"the certificate of {site.url} is not trusted", "SSL_CERT_FILE"
    )
    assert site.seen == []

    with trusting(authority, monkeypatch):  # the same server, its authority now named
        _, done = await collect(anthropic_model(site.url))
    assert_failed(done, ErrorKind.REJECTED, "404", "no such route")
    assert [seen.path for seen in site.seen] == ["/v1/messages"]
