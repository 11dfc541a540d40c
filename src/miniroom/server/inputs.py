"""Reading and checking request input: JSON bodies and query parameters, each error naming the field."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from starlette.requests import Request

from miniroom.server.errors import ApiError, bad_request, shown

MAX_REQUEST_BYTES = 512 * 1024  # a 64 KiB message, even with every character escaped in JSON
MAX_BODY_BYTES = 64 * 1024
MAX_ID_BYTES = 255  # Matrix's limit for event, room and user ids
MAX_POSITION = 2**63 - 1  # the largest stream position SQLite stores
_DIGITS = re.compile(r"[0-9]+")
_MAX_DIGITS = len(str(MAX_POSITION))
_SHOWN_FIELDS = 5


async def json_object(request: Request, allowed: Collection[str]) -> dict[str, Any]:
    """The request's JSON object; refuses other JSON, unknown fields, broken text and oversized requests."""
    raw = await _body_within_limit(request)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ApiError(
            400, "M_NOT_JSON", f"the request body is not UTF-8 text (byte {exc.start}); send JSON in UTF-8"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise ApiError(
            400, "M_NOT_JSON", f"the request body is not JSON ({_json_problem(exc)}); send a JSON object"
        ) from None
    if not isinstance(data, dict):
        raise bad_request('the request body must be a JSON object, e.g. {"body": "hello"}')
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        names = ", ".join(shown(name) for name in unknown[:_SHOWN_FIELDS])
        more = f" and {len(unknown) - _SHOWN_FIELDS} more" if len(unknown) > _SHOWN_FIELDS else ""
        raise bad_request(f"unknown field {names}{more}; allowed: {', '.join(sorted(allowed))}")
    for name, value in data.items():
        if isinstance(value, str) and not _is_unicode(value):
            raise bad_request(
                f'"{name}" holds a lone surrogate (half of a UTF-16 pair, such as \\ud800); send valid text'
            )
    return data


async def _body_within_limit(request: Request) -> bytes:
    """The body, read chunk by chunk and refused as soon as it is over the limit (or says it will be)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isascii() or not declared.isdigit():
            raise bad_request(f"the Content-Length header must be a whole number, not {shown(declared)}")
        if int(declared) > MAX_REQUEST_BYTES:
            raise _too_large(int(declared))
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_REQUEST_BYTES:
            raise _too_large()
        chunks.append(chunk)
    return b"".join(chunks)


def _json_problem(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return "it is nested too deeply"
    return "a number in it has more digits than Python reads"  # over the 4,300-digit cap


def _too_large(size: int | None = None) -> ApiError:
    """`size`: what Content-Length declared; None when a body sent without it grew past the limit."""
    limit = f"{MAX_REQUEST_BYTES:,} bytes (512 KiB)"
    told = f"is {size:,} bytes; the limit is {limit}" if size is not None else f"is over the limit of {limit}"
    return ApiError(413, "M_TOO_LARGE", f"the request {told}. Send less text")


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def message_body(data: dict[str, Any]) -> str:
    """The required `body`: non-blank text of at most 64 KiB."""
    body = data.get("body")
    if body is None:
        raise bad_request('missing "body": send {"body": "your message"}')
    if not isinstance(body, str):
        raise bad_request(f'"body" must be a string, not {_json_type(body)}')
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


def optional_text(data: dict[str, Any], field: str, *, limit: int) -> str | None:
    """An optional string field of at most `limit` characters."""
    value = data.get(field)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise bad_request(f'"{field}" must be a text of at most {limit} characters, not {_json_type(value)}')
    return value


def optional_event_id(data: dict[str, Any], field: str) -> str | None:
    value = data.get(field)
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith("$") or len(value.encode()) > MAX_ID_BYTES:
        raise bad_request(f'"{field}" must be an event id like "$abc…", not {shown(value)}')
    return value


def optional_txn_id(data: dict[str, Any]) -> str | None:
    """A client's transaction id: a repeat of a request with the same one returns the first answer."""
    value = data.get("txn_id")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID_BYTES:
        raise bad_request(
            f'"txn_id" must be a non-empty text of at most {MAX_ID_BYTES} characters, unique per '
            f"message (e.g. a random UUID), not {shown(value)}"
        )
    return value


def query_int(request: Request, name: str, *, low: int, high: int = MAX_POSITION) -> int | None:
    """An optional integer query parameter within [low, high]."""
    raw = request.query_params.get(name)
    return None if raw is None else whole_number(raw, f'query parameter "{name}"', low=low, high=high)


def whole_number(raw: str, what: str, *, low: int = 0, high: int = MAX_POSITION) -> int:
    """`raw` read as a whole number within [low, high]; `what` names it in the error."""
    if not _DIGITS.fullmatch(raw):
        raise bad_request(f"{what} must be a whole number, not {shown(raw)}")
    # Past 19 digits it is over any limit; reading it whole could even hit Python's 4,300-digit cap.
    value = int(raw) if len(raw) <= _MAX_DIGITS else None
    if value is None or not low <= value <= high:
        given = shown(raw if value is None else value)
        raise bad_request(f"{what} must be between {low} and {high}, not {given}")
    return value


def query_flag(request: Request, name: str) -> bool:
    raw = request.query_params.get(name, "false").lower()
    if raw not in ("true", "false", "1", "0"):
        raise bad_request(f'query parameter "{name}" must be true or false, not {shown(raw)}')
    return raw in ("true", "1")


def _json_type(value: object) -> str:
    """The JSON name of a parsed value's type, as the sender wrote it."""
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    names = {str: "a string", int: "a number", float: "a number", list: "an array", dict: "an object"}
    return names.get(type(value), type(value).__name__)
