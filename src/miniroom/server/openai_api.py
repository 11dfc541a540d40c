"""The OpenAI-compatible door of `miniroom serve`: `GET /v1/models` lists the agents and teams, and
`POST /v1/chat/completions` has one answer, streamed or not. Access is checked by the app's guard."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from miniroom.server.openai_shapes import (
    ChatRequest,
    Completion,
    OpenAiError,
    model_json,
    model_not_found,
    models_json,
    parse_chat_request,
    session_key,
)
from miniroom.server.openai_turns import ClientTurn, ClientTurns

PREFIX = "/v1/"
MAX_BODY_BYTES = 16 * 1024 * 1024  # a long conversation, re-sent whole at every request
SESSION_HEADER = "x-session-id"
TOOL_LINES_HEADER = "x-miniroom-tool-lines"  # "true": the tool calls as Markdown lines, as `tool_lines`
FAILED_STATUS = 502  # the agent's model failed: a gateway's answer, and clients may retry it


def turns_of(request: Request) -> ClientTurns:
    turns: ClientTurns | None = getattr(request.app.state, "client_turns", None)
    if turns is None:
        raise OpenAiError(503, "The agents are not running yet; try again in a moment.", kind="server_error")
    return turns


async def list_models(request: Request) -> JSONResponse:
    turns = turns_of(request)
    return JSONResponse(models_json(turns.names(), turns.created))


async def get_model(request: Request) -> JSONResponse:
    turns = turns_of(request)
    name = request.path_params["model"]
    if name not in turns.names():
        raise model_not_found(name)
    return JSONResponse(model_json(name, turns.created))


async def chat_completions(request: Request) -> Response:
    turns = turns_of(request)
    chat = parse_chat_request(await _json_body(request))
    if chat.model not in turns.names():
        raise model_not_found(chat.model)
    key = session_key(request.headers.get(SESSION_HEADER), chat.user, chat.messages)
    tool_lines = chat.tool_lines or request.headers.get(TOOL_LINES_HEADER, "").lower() == "true"
    turn = turns.start(chat.model, key, chat.messages, tool_lines=tool_lines)
    completion = Completion(f"chatcmpl-{uuid.uuid4().hex}", chat.model, turns.created)
    if chat.stream:
        return StreamingResponse(
            _chunks(turn, chat, completion),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )
    await turn.done.wait()
    if turn.failure is not None:
        raise _failed(turn)
    return JSONResponse(completion.message(turn.text, turn.usage))


async def _json_body(request: Request) -> Any:
    declared = request.headers.get("content-length", "")
    too_large = OpenAiError(413, f"The request body is over {MAX_BODY_BYTES // 2**20} MiB.")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise too_large
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise OpenAiError(400, f"The request body is not valid JSON ({error}).") from None


def _failed(turn: ClientTurn) -> OpenAiError:
    agent = turn.running.turn.agent
    message = f"{agent} failed: {turn.failure}"
    return OpenAiError(FAILED_STATUS, message, kind="server_error", code="turn_failed")


async def _chunks(turn: ClientTurn, chat: ChatRequest, completion: Completion) -> AsyncIterator[str]:
    """The answer as `chat.completion.chunk` events, then `[DONE]`; the turn stops if the client goes away."""
    try:
        yield _event(completion.chunk({"role": "assistant", "content": ""}))
        async for piece in turn.stream():
            # A comment line keeps proxies and clients from closing the connection during a long tool call.
            yield ": keep-alive\n\n" if piece is None else _event(completion.chunk({"content": piece}))
        if turn.failure is not None:
            yield _event(_failed(turn).body())
        else:
            yield _event(completion.chunk({}, finish_reason="stop"))
        if chat.include_usage:
            yield _event(completion.usage_chunk(turn.usage))
        yield "data: [DONE]\n\n"
    finally:
        if not turn.done.is_set():
            turn.abort()


def _event(data: dict[str, Any]) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"


async def unknown_endpoint(request: Request) -> Response:
    message = f"Unknown request URL: {request.method} {request.url.path}. See GET /v1/models."
    return openai_error(OpenAiError(404, message, code="unknown_url"))


def openai_error(error: OpenAiError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status)


async def openai_error_handler(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, OpenAiError)
    return openai_error(exc)


ROUTES = [
    Route("/v1/models", list_models, methods=["GET"]),
    Route("/v1/models/{model:path}", get_model, methods=["GET"]),
    Route("/v1/chat/completions", chat_completions, methods=["POST"]),
    Route("/v1/{rest:path}", unknown_endpoint, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
]
