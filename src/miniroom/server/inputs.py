"""Reading and checking request input: JSON bodies and query parameters, each error naming the field."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from starlette.requests import Request

from miniroom.server.errors import ApiError, bad_request

MAX_REQUEST_BYTES = 512 * 1024  # a 64 KiB message, even with every character escaped in JSON
MAX_BODY_BYTES = 64 * 1024
MAX_TXN_ID_LENGTH = 255


async def json_object(request: Request, allowed: Collection[str]) -> dict[str, Any]:
    """The request's JSON object; refuses other JSON, unknown fields and oversized requests."""
    raw = await request.body()
    if len(raw) > MAX_REQUEST_BYTES:
        raise ApiError(
            413, "M_TOO_LARGE", f"the request is {len(raw):,} bytes; the limit is {MAX_REQUEST_BYTES:,}"
        )
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(
            400, "M_NOT_JSON", f"the request body is not JSON ({exc}); send a JSON object"
        ) from None
    if not isinstance(data, dict):
        raise bad_request('the request body must be a JSON object, e.g. {"body": "hello"}')
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise bad_request(
            f"unknown field {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(allowed))}"
        )
    return data


def message_body(data: dict[str, Any]) -> str:
    """The required `body`: non-blank text of at most 64 KiB."""
    body = data.get("body")
    if body is None:
        raise bad_request('missing "body": send {"body": "your message"}')
    if not isinstance(body, str):
        raise bad_request(f'"body" must be a string, not {type(body).__name__}')
    if not body.strip():
        raise bad_request('"body" is empty; write some text')
    size = len(body.encode())
    if size > MAX_BODY_BYTES:
        raise ApiError(
            413,
            "M_TOO_LARGE",
            f'"body" is {size:,} bytes; the limit is {MAX_BODY_BYTES:,} (64 KiB). Send it in parts',
        )
    return body


def optional_event_id(data: dict[str, Any], field: str) -> str | None:
    value = data.get(field)
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith("$"):
        raise bad_request(f'"{field}" must be an event id like "$abc…", not {value!r}')
    return value


def optional_txn_id(data: dict[str, Any]) -> str | None:
    """A client's transaction id: a repeat of a request with the same one returns the first answer."""
    value = data.get("txn_id")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TXN_ID_LENGTH:
        raise bad_request(
            f'"txn_id" must be a non-empty text of at most {MAX_TXN_ID_LENGTH} characters, unique per '
            f"message (e.g. a random UUID), not {value!r}"
        )
    return value


def query_int(request: Request, name: str, *, low: int, high: int | None = None) -> int | None:
    """An optional integer query parameter within [low, high]."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise bad_request(f'query parameter "{name}" must be a whole number, not {raw!r}') from None
    if value < low or (high is not None and value > high):
        limits = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise bad_request(f'query parameter "{name}" must be {limits}, not {value}')
    return value


def query_flag(request: Request, name: str) -> bool:
    raw = request.query_params.get(name, "false").lower()
    if raw not in ("true", "false", "1", "0"):
        raise bad_request(f'query parameter "{name}" must be true or false, not {raw!r}')
    return raw in ("true", "1")
