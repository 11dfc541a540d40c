"""The `miniroom-agent` routes under /api/agent/: each request carries a shell command's grant token as
`Authorization: Bearer <token>`, and everything it reaches follows from that grant, never from the request."""

from __future__ import annotations

import math
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from miniroom.llm import MAX_ARGUMENT_DEPTH, nests_deeper
from miniroom.minimal.calls import Submission
from miniroom.minimal.catalog import DEFAULT_READ_CHARS
from miniroom.minimal.errors import OperationError
from miniroom.minimal.receipts import Receipt
from miniroom.minimal.service import AgentCli
from miniroom.server.errors import bad_request, error_response, shown
from miniroom.server.inputs import json_object, query_int

PREFIX = "/api/agent/"
STATUS_HEADER = "Miniroom-Call-Status"  # a receipt's status, so a client need not parse the body for it
DEFAULT_WAIT_SECONDS = 30.0
DEFAULT_SEARCH_RESULTS = 10


def service_of(request: Request) -> AgentCli:
    service: AgentCli = request.app.state.agent_cli
    return service


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header[:7].lower() == "bearer " else None


def seconds(request: Request, name: str, default: float) -> float:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise bad_request(f'query parameter "{name}" must be a number of seconds, not {shown(raw)}') from None
    if not math.isfinite(value):
        raise bad_request(f'query parameter "{name}" must be a finite number of seconds, not {shown(raw)}')
    return value


def receipt_response(receipt: Receipt) -> JSONResponse:
    return JSONResponse(receipt.to_json(), headers={STATUS_HEADER: receipt.status})


async def operation_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, OperationError)
    return error_response(exc.status, exc.errcode, exc.message)


async def list_tools(request: Request) -> JSONResponse:
    return JSONResponse(await service_of(request).list_tools(bearer(request)))


async def search_tools(request: Request) -> JSONResponse:
    query = request.query_params.get("q", "")
    limit = query_int(request, "limit", low=1, high=1000) or DEFAULT_SEARCH_RESULTS
    return JSONResponse(await service_of(request).search_tools(bearer(request), query, limit))


async def describe_tool(request: Request) -> JSONResponse:
    name = request.path_params["name"]
    return JSONResponse(await service_of(request).describe_tool(bearer(request), name))


async def submit_call(request: Request) -> JSONResponse:
    """Start a call and hold the request until it ends or `wait` seconds pass; the receipt either way."""
    service, token = service_of(request), bearer(request)
    service.command(token)  # an unknown or ended grant is refused before the body is read
    data = await json_object(request, ("tool", "arguments", "call_id", "wait"))
    submission = Submission(
        tool=_text(data, "tool", 'e.g. "files.read"'),
        arguments=_arguments(data),
        call_id=_text(data, "call_id", "a UUID"),
        wait=_number(data, "wait", DEFAULT_WAIT_SECONDS),
    )
    return receipt_response(await service.submit(token, submission))


async def get_call(request: Request) -> JSONResponse:
    return receipt_response(service_of(request).get(bearer(request), request.path_params["call_id"]))


async def wait_call(request: Request) -> JSONResponse:
    """Held until the call ends or `timeout` seconds pass: the server waits, the client does not poll."""
    timeout = seconds(request, "timeout", DEFAULT_WAIT_SECONDS)
    receipt = await service_of(request).wait(bearer(request), request.path_params["call_id"], timeout)
    return receipt_response(receipt)


async def context_list(request: Request) -> JSONResponse:
    return JSONResponse(service_of(request).context_list(bearer(request)))


async def context_read(request: Request) -> JSONResponse:
    offset = query_int(request, "offset", low=0) or 0
    limit = query_int(request, "limit", low=1) or DEFAULT_READ_CHARS
    name = request.path_params["name"]
    return JSONResponse(await service_of(request).context_read(bearer(request), name, offset, limit))


def _text(data: dict[str, Any], field: str, example: str) -> str:
    value = data.get(field)
    if not isinstance(value, str) or not value:
        raise bad_request(f'"{field}" must be a non-empty text ({example}), not {shown(value)}')
    return value


def _arguments(data: dict[str, Any]) -> dict[str, Any]:
    value = data.get("arguments", {})
    if not isinstance(value, dict):
        raise bad_request(
            f'"arguments" must be a JSON object, e.g. {{"path": "README.md"}}, not {shown(value)}'
        )
    if nests_deeper(value, MAX_ARGUMENT_DEPTH):
        raise bad_request(
            f'"arguments" nest lists or objects deeper than {MAX_ARGUMENT_DEPTH} levels, more than any tool '
            "takes; flatten them"
        )
    return value


def _number(data: dict[str, Any], field: str, default: float) -> float:
    value = data.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise bad_request(f'"{field}" must be a number of seconds, not {shown(value)}')
    return float(value)


ROUTES = [
    Route(f"{PREFIX}tools", list_tools, methods=["GET"]),
    Route(f"{PREFIX}tools/search", search_tools, methods=["GET"]),
    Route(PREFIX + "tools/{name}", describe_tool, methods=["GET"]),
    Route(f"{PREFIX}calls", submit_call, methods=["POST"]),
    Route(PREFIX + "calls/{call_id}", get_call, methods=["GET"]),
    Route(PREFIX + "calls/{call_id}/wait", wait_call, methods=["GET"]),
    Route(f"{PREFIX}context", context_list, methods=["GET"]),
    Route(PREFIX + "context/{name:path}", context_read, methods=["GET"]),
]
