"""The HTTP side shared by both protocols: the client, and turning failures into typed `ProviderFailure`s."""

from __future__ import annotations

import html
import json
import re
import socket
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from miniroom.config.errors import cause_of
from miniroom.config.http_client import http_client
from miniroom.config.tls import TRUST_HINT, untrusted_certificate
from miniroom.llm.errors import ErrorKind, ProviderFailure
from miniroom.llm.http_values import base_url_problem, header_name_problem, header_value_problem
from miniroom.llm.model import Model
from miniroom.llm.providers import get_template

CONNECT_TIMEOUT = 10.0
_REASON_LIMIT = 500

# Error `type`/`code` words of both protocols, as the HTTP status they stand for, so an error reported
# inside a stream (HTTP 200) is classified like the same error sent as a status.
_STATUS_OF_ERROR_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "invalid_api_key": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "api_error": 500,
    "server_error": 500,
    "overloaded_error": 529,
    "timeout_error": 504,
}
# Patterns of failures only, so as text: `re` compiles (and caches) them at a failure, not at every start.
_QUOTA = r"insufficient_quota|credit|billing|quota exceeded|exceeded your current quota"
_CONTEXT_OVERFLOW = (
    r"prompt is too long|input is too long|prompt too long|context length|context_length|maximum context"
    r"|context window|too many tokens"
)


# Reads wait as long as the request's own first-byte and idle deadlines allow (see llm/stream.py).
UNBOUNDED_READS = httpx.Timeout(None, connect=CONNECT_TIMEOUT)


def make_client() -> httpx.AsyncClient:
    """One client to share between requests; proxies come from HTTP(S)_PROXY, ALL_PROXY and NO_PROXY."""
    return http_client(UNBOUNDED_READS)


def json_bytes(body: Any) -> bytes:
    """A request body as JSON: by orjson, which writes a long conversation's some 15x faster than the json
    module, re-sent whole at every request; by json for what orjson refuses (an integer past 64 bits)."""
    try:
        return orjson.dumps(body)
    except TypeError:
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def failure_from_status(
    model: Model, url: str, status: int, body: bytes, headers: Mapping[str, str]
) -> ProviderFailure:
    """An HTTP error response, classified by status, the provider's error type and its reason."""
    error_type, reason = _read_error_body(body)
    kind, message = classify_failure(model, url, status, error_type, reason)
    return ProviderFailure(kind, message, status, retry_after_seconds(headers))


def failure_from_payload(model: Model, payload: Any) -> ProviderFailure:
    """An error reported inside a reply: Anthropic's `error` event or OpenAI's `{"error": ...}` chunk."""
    error_type, reason = _error_fields(payload)
    code = _STATUS_OF_ERROR_TYPE.get(error_type, 500)
    kind, message = classify_failure(model, model.base_url, code, error_type, reason)
    return ProviderFailure(kind, message)


def classify_failure(
    model: Model, url: str, code: int, error_type: str, reason: str
) -> tuple[ErrorKind, str]:
    """The kind and message of a failure; `code` is the HTTP status or what the error type stands for.

    The spec retries 400, 408, 429 and 5xx; any other 4xx would be refused the same way again."""
    provider = model.provider
    # each message goes on after the reason with a full stop of its own
    reason = (reason or error_type or "no reason given").rstrip(" .")
    if code == 402 or re.search(_QUOTA, f"{error_type} {reason}", re.I):
        return ErrorKind.QUOTA, (
            f"{provider} says the account is out of quota or credit: {reason}. Check its plan and billing."
        )
    if code == 429:
        return ErrorKind.RATE_LIMIT, (
            f"{provider} rate limit reached: {reason}. Wait a moment, or send fewer requests."
        )
    if code in (503, 529) or error_type == "overloaded_error":
        return ErrorKind.OVERLOADED, f"{provider} is overloaded: {reason}. Try again later."
    if code in (401, 403):
        return ErrorKind.AUTH, _auth_message(model, reason)
    if code in (400, 413) and re.search(_CONTEXT_OVERFLOW, reason, re.I):
        return ErrorKind.CONTEXT_OVERFLOW, (
            f"the conversation is too long for {model.ref} (context window {model.context_window} tokens): "
            f"{reason}. Compact the session or start a new one."
        )
    if code >= 500:
        return ErrorKind.SERVER, f"{provider} server error: {reason}."
    if code == 408:
        return ErrorKind.TIMEOUT, f"{provider} gave up waiting for the request at {url}: {reason}"
    if code == 400:
        return ErrorKind.BAD_REQUEST, f"{provider} rejected the request: {reason}."
    return ErrorKind.REJECTED, _rejected_message(model, url, code, reason)


_REJECTED_HINTS = {
    404: "Check the model id {id!r} and the base URL {base_url}",
    405: "The address does not take this request: check the base URL {base_url}",
    413: "The request is larger than the server takes",
    422: "The server cannot process the request: check that {base_url} speaks {api}",
}


def _status_text(code: int) -> str:
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)


def _rejected_message(model: Model, url: str, code: int, reason: str) -> str:
    status = _status_text(code)
    default = "Check the base URL {base_url}, the model id {id!r} and the protocol {api}"
    hint = _REJECTED_HINTS.get(code, default).format(id=model.id, base_url=model.base_url, api=model.api)
    return (
        f"{model.provider} refused the request to {url} for model {model.id} ({status}): {reason}. "
        f"{hint}; the same request would be refused again, so it is not retried."
    )


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait the provider asks for: `retry-after-ms`, or `retry-after` in seconds or as an HTTP date."""
    try:
        milliseconds = headers.get("retry-after-ms")
        if milliseconds:
            return max(float(milliseconds) / 1000, 0.0)
        value = headers.get("retry-after")
        if not value:
            return None
        if value.strip().replace(".", "", 1).isdigit():
            return float(value)
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None  # a header we cannot read asks for nothing
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def failure_from_exception(model: Model, exc: httpx.HTTPError | httpx.InvalidURL) -> ProviderFailure:
    """A transport failure: the host is unknown or unreachable, the reply stalled, or the connection broke."""
    where = model.base_url
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ProxyError):
        message = (
            f"the proxy refused the connection to {where} ({detail}): check HTTPS_PROXY/HTTP_PROXY/NO_PROXY."
        )
    elif _unknown_host(exc):
        host = urlsplit(where).hostname or where
        message = (
            f"the host {host} of {where} is unknown ({detail}): check the base URL for a typo; "
            "the same address would not resolve again, so it is not retried."
        )
        return ProviderFailure(ErrorKind.UNKNOWN_HOST, message)
    elif untrusted_certificate(exc):
        message = f"the certificate of {where} is not trusted ({detail}); {TRUST_HINT}."
    elif cause_of(exc, lambda cause: isinstance(cause, ConnectionRefusedError)):
        message = (
            f"{where} refused the connection ({detail}): nothing listens at that address and port. Check the "
            "base URL (a mistyped port?) and that the server is running."
        )
        return ProviderFailure(ErrorKind.REFUSED, message)
    elif isinstance(exc, httpx.ConnectTimeout | httpx.ConnectError):
        message = (
            f"cannot connect to {where} ({detail}): check the base URL, the network and any proxy settings."
        )
    elif isinstance(exc, httpx.TimeoutException):
        return ProviderFailure(ErrorKind.TIMEOUT, f"{where} timed out ({detail}); the reply was abandoned.")
    elif isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL | httpx.LocalProtocolError):
        message = (
            f"the request to {where} could not be sent ({detail}): fix the model's baseUrl and headers; the "
            "same request would fail again, so it is not retried."
        )
        return ProviderFailure(ErrorKind.SETTINGS, message)
    else:
        message = f"the connection to {where} broke during the reply ({detail}); the reply is incomplete."
    return ProviderFailure(ErrorKind.CONNECTION, message)


def _unknown_host(exc: BaseException) -> bool:
    """Whether name resolution said the host does not exist (not that the resolver was unreachable)."""
    cause = cause_of(exc, lambda cause: isinstance(cause, socket.gaierror))
    return isinstance(cause, socket.gaierror) and cause.errno != socket.EAI_AGAIN


def _header_problem(model: Model, name: str, value: str) -> str:
    if problem := header_name_problem(name):
        return f"header {problem}"
    secret = bool(model.api_key) and model.api_key in value  # the key's header: described, never shown
    problem = header_value_problem(value, secret=secret)
    if not problem:
        return ""
    return f"API key {problem}" if secret else f"header {name} {problem}"


def unsendable_failure(model: Model, headers: Mapping[str, str]) -> ProviderFailure | None:
    """A request no server could take, found before it is sent: a base URL or header is the user's to fix."""
    problem = base_url_problem(model.base_url)
    what = f"base URL {model.base_url} {problem}" if problem else ""
    for name, value in headers.items():
        what = what or _header_problem(model, name, value)
    if not what:
        return None
    message = (
        f"the request to {model.provider} was not sent: its {what}. Fix the model's settings (models.json, "
        "MINI_BASE_URL, the key variable); the same request would fail again, so it is not retried."
    )
    return ProviderFailure(ErrorKind.SETTINGS, message)


def stalled_failure(model: Model, seconds: float, started: bool) -> ProviderFailure:
    """No response within the first-byte timeout, or no content within the idle timeout."""
    where = model.base_url
    if not started:
        message = (
            f"{where} sent no response within {seconds:g} s (the first-byte timeout); the attempt was "
            "abandoned. For a provider this slow, raise firstByteTimeout (MINI_PROFILE_FIRST_BYTE_TIMEOUT)."
        )
    else:
        message = (
            f"{where} sent no content for {seconds:g} s (the idle timeout; keep-alive pings do not count); "
            "the reply was abandoned. For a model that thinks this long in silence, raise idleTimeout "
            "(MINI_PROFILE_IDLE_TIMEOUT)."
        )
    return ProviderFailure(ErrorKind.TIMEOUT, message)


def answer_limit_failure(model: Model, *, seconds: float = 0.0, size: int = 0) -> ProviderFailure:
    """One answer passed its total time (`seconds`) or its size (`size` bytes): cut there, never retried,
    since the same answer would pass it again."""
    if size:
        passed, setting, variable = f"{size:,} bytes", "maxAnswerBytes", "MINI_PROFILE_MAX_ANSWER_BYTES"
    else:
        passed, setting, variable = f"{seconds:g} s", "answerTimeout", "MINI_PROFILE_ANSWER_TIMEOUT"
    message = (
        f"the answer from {model.base_url} passed {passed} ({setting}, the most one answer may take), so it "
        f"was cut there and is not retried. For a model that writes longer answers, raise {setting} "
        f"({variable})."
    )
    return ProviderFailure(ErrorKind.ANSWER_LIMIT, message)


def unexpected_status_failure(
    model: Model, url: str, status: int, headers: Mapping[str, str]
) -> ProviderFailure | None:
    """A response that is neither an error nor a reply: a redirect, or a success other than 200."""
    if status == 200:
        return None
    check = f"check the base URL {model.base_url}"
    if 300 <= status < 400:
        target = headers.get("location") or "no address"
        message = (
            f"{model.provider} at {url} answered with a redirect ({_status_text(status)}) to {target}; "
            f"a model request is never redirected, so {check}: it must be the provider's API address."
        )
    else:
        message = f"{model.provider} at {url} answered with status {_status_text(status)}, not 200: {check}."
    return ProviderFailure(ErrorKind.PROTOCOL, message)


def not_a_reply_failure(model: Model, url: str, content_type: str, body: bytes) -> ProviderFailure:
    """A 200 whose body is no reply: an HTML page (a portal, a web UI), or another type without events."""
    text = body.decode("utf-8", "replace")
    if "html" in content_type or text.lstrip()[:1] == "<":
        what, words = "an HTML page", _shorten(_plain_text(text))
    else:
        what, words = f"content of type {content_type or 'unknown'}", ""
    says = f" The page says: {words}" if words else ""
    message = (
        f"{model.provider} at {url} answered with {what} (status 200), not a model's reply: check the base "
        f"URL {model.base_url}.{says}"
    )
    return ProviderFailure(ErrorKind.PROTOCOL, message)


def truncated_connection_failure(model: Model) -> ProviderFailure:
    message = (
        f"the connection to {model.base_url} closed before the reply was complete; the reply is incomplete."
    )
    return ProviderFailure(ErrorKind.CONNECTION, message)


def protocol_failure(model: Model, problem: str) -> ProviderFailure:
    return ProviderFailure(
        ErrorKind.PROTOCOL, f"could not understand the reply from {model.base_url}: {problem}"
    )


def _auth_message(model: Model, reason: str) -> str:
    template = get_template(model.provider)
    variable = template.key_variable if template else f"{model.provider.upper().replace('-', '_')}_API_KEY"
    where = f"{variable} (or MINI_API_KEY, or the model's apiKey in models.json)"
    if not model.api_key:
        return f"{model.provider} refused the request ({reason}): no API key is set. Set {where}."
    return (
        f"{model.provider} refused the API key ({reason}). "
        f"Check the API key variable {where}, and that the key may use {model.id}."
    )


def _read_error_body(body: bytes) -> tuple[str, str]:
    text = body.decode("utf-8", "replace").strip()
    try:
        payload = json.loads(text)
    except ValueError:
        return "", _shorten(_plain_text(text))
    error_type, reason = _error_fields(payload)
    return error_type, reason or _shorten(_plain_text(text))


_TAG = r"<(script|style)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>"  # compiled at a failure, by `re`


def _plain_text(text: str) -> str:
    """A body that is not JSON on one line: an HTML error page (a proxy's, a web server's) as its words."""
    if text.lstrip().startswith("<"):
        text = html.unescape(re.sub(_TAG, " ", text, flags=re.I | re.S))
    return " ".join(text.split())


def _error_fields(payload: Any) -> tuple[str, str]:
    """(type, message) from {"error": {"type", "code", "message"}}, {"error": "..."} or {"message": "..."}."""
    if not isinstance(payload, dict):
        return "", ""
    error = payload.get("error", payload)
    if isinstance(error, str):
        return "", _shorten(error)
    if not isinstance(error, dict):
        return "", ""
    error_type = error.get("type") or error.get("code") or ""
    reason = error.get("message") or error.get("detail") or ""
    return str(error_type), _shorten(str(reason))


def _shorten(text: str) -> str:
    return text if len(text) <= _REASON_LIMIT else text[:_REASON_LIMIT] + "…"
