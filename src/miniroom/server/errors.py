"""API errors as JSON, Matrix-style: `{"errcode": "M_…", "error": "what is wrong and how to fix it"}`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from miniroom.transports.embedded import NotAllowed, RoomError, TooLarge, UnknownEvent, UnknownRoom


class ApiError(Exception):
    """A refused request: HTTP status, Matrix error code and a message for people."""

    def __init__(
        self, status: int, errcode: str, message: str, details: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.errcode = errcode
        self.message = message
        self.details = dict(details or {})  # more fields for the client, e.g. each settings problem


_SHOWN_CHARS = 80


def bad_request(message: str) -> ApiError:
    return ApiError(400, "M_BAD_JSON", message)


def shown(value: object) -> str:
    """`value` as an error message quotes it: its repr, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else f"{text[: _SHOWN_CHARS - 1]}…"


def error_response(
    status: int, errcode: str, message: str, details: Mapping[str, Any] | None = None
) -> JSONResponse:
    # A lone surrogate from the request cannot be encoded as UTF-8; it is shown escaped instead.
    readable = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return JSONResponse({**(details or {}), "errcode": errcode, "error": readable}, status_code=status)


async def client_gone(_: Request, exc: Exception) -> Response:
    """The client left, or was closed for sending its request too slowly, before its body was read: nobody
    is there to read an answer, and nothing failed on our side."""
    assert isinstance(exc, ClientDisconnect)
    return Response(status_code=408)


async def api_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.errcode, exc.message, exc.details)


async def room_error(_: Request, exc: Exception) -> Response:
    """A refusal from the room store, with the status that fits it."""
    assert isinstance(exc, RoomError)
    status, errcode = 400, "M_INVALID_PARAM"
    if isinstance(exc, UnknownRoom | UnknownEvent):
        status, errcode = 404, "M_NOT_FOUND"
    elif isinstance(exc, NotAllowed):
        status, errcode = 403, "M_FORBIDDEN"
    elif isinstance(exc, TooLarge):
        status, errcode = 413, "M_TOO_LARGE"
    return error_response(status, errcode, str(exc))


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        message = f"no such endpoint: {request.method} {request.url.path}; see GET /api/rooms"
        return error_response(404, "M_UNRECOGNIZED", message)
    if exc.status_code == 405:
        return error_response(405, "M_UNRECOGNIZED", f"{request.method} is not allowed on {request.url.path}")
    return error_response(exc.status_code, "M_UNKNOWN", str(exc.detail))
