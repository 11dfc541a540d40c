"""The OpenAI-compatible door's decisions, without I/O: reading a chat completion request, which session it
continues and what of it is new, and the JSON shapes of OpenAI's answers (completions, chunks, errors)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from miniroom.engine import AgentEvent, MessageCompleted, TextDelta, ToolStarted
from miniroom.llm import Usage

ROLES = ("system", "developer", "user", "assistant", "tool")
INSTRUCTION_ROLES = ("system", "developer")
MAX_SESSION_ID_CHARS = 200
MAX_TOOL_LINE_CHARS = 160
OWNER = "miniroom"


class OpenAiError(Exception):
    """A refused request, answered in OpenAI's error shape with `status`."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        kind: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.kind, self.param, self.code = status, message, kind, param, code

    def body(self) -> dict[str, Any]:
        return error_body(self.message, self.kind, self.param, self.code)


def error_body(message: str, kind: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def refusal_body(status: int, message: str) -> dict[str, Any]:
    """The access guard's refusal (no or wrong token, another machine) as OpenAI words it."""
    code = "invalid_api_key" if status == 401 else None
    return error_body(message, "invalid_request_error", None, code)


def model_not_found(model: str) -> OpenAiError:
    message = f"The model `{model}` does not exist or you do not have access to it."
    return OpenAiError(404, message, param="model", code="model_not_found")


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str
    text: str


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What miniroom reads of a chat completion request; other fields (temperature, tools, …) are ignored:
    the agent's own profile decides them."""

    model: str
    messages: tuple[ChatMessage, ...]
    stream: bool = False
    include_usage: bool = False
    user: str | None = None
    tool_lines: bool = False  # miniroom's own field: the agent's tool calls as Markdown lines in the answer


def parse_chat_request(body: object) -> ChatRequest:
    """The request, or an OpenAiError naming the field at fault and what it should hold."""
    if not isinstance(body, dict):
        raise OpenAiError(400, "The request body must be a JSON object.")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        message = "`model` must be the name of an agent or team (see GET /v1/models)."
        raise OpenAiError(400, message, param="model")
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise OpenAiError(400, "`messages` must be a non-empty list of messages.", param="messages")
    messages = tuple(_message(index, raw) for index, raw in enumerate(raw_messages))
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise OpenAiError(400, "`stream_options` must be an object.", param="stream_options")
    return ChatRequest(
        model=model,
        messages=messages,
        stream=_flag(body, "stream"),
        include_usage=_flag(options or {}, "include_usage", "stream_options.include_usage"),
        user=_optional_text(body, "user"),
        tool_lines=_flag(body, "tool_lines"),
    )


def _flag(data: Mapping[str, Any], name: str, param: str | None = None) -> bool:
    value = data.get(name, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        where = param or name
        raise OpenAiError(400, f"`{where}` must be true or false, not {value!r}.", param=where)
    return value


def _optional_text(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise OpenAiError(400, f"`{name}` must be a string.", param=name)
    return value or None


def _message(index: int, raw: object) -> ChatMessage:
    where = f"messages[{index}]"
    if not isinstance(raw, dict):
        raise OpenAiError(400, f"`{where}` must be an object with `role` and `content`.", param=where)
    role = raw.get("role")
    if role not in ROLES:
        known = ", ".join(ROLES)
        raise OpenAiError(400, f"`{where}.role` must be one of {known}, not {role!r}.", param=f"{where}.role")
    return ChatMessage(str(role), _content_text(raw.get("content"), f"{where}.content"))


def _content_text(content: object, where: str) -> str:
    """A message's text: a string, or the text parts of a list (null for an assistant's tool calls)."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise OpenAiError(400, f"`{where}` must be a string or a list of text parts.", param=where)
    texts = []
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        text = part.get("text") if isinstance(part, dict) else None
        if kind != "text" or not isinstance(text, str):
            shown = kind if isinstance(kind, str) else type(part).__name__
            message = f"`{where}[{index}]`: only text parts are read here, not {shown!r}."
            raise OpenAiError(400, message, param=f"{where}[{index}]")
        texts.append(text)
    return "\n".join(texts)


def session_key(header: str | None, user: str | None, messages: Sequence[ChatMessage]) -> str:
    """Which agent session a request continues: the X-Session-Id header, else the `user` field, else a hash
    of the conversation's first instructions and first user message (the same at every later request)."""
    if header:
        if len(header) > MAX_SESSION_ID_CHARS:
            message = f"The X-Session-Id header is longer than {MAX_SESSION_ID_CHARS} characters."
            raise OpenAiError(400, message, param="X-Session-Id")
        return f"session:{header}"
    if user:
        return f"user:{user}"
    instructions = next((m.text for m in messages if m.role in INSTRUCTION_ROLES), "")
    first = next((m.text for m in messages if m.role == "user"), "")
    digest = hashlib.sha256(f"{instructions}\0{first}".encode()).hexdigest()[:32]
    return f"derived:{digest}"


def turn_prompt(messages: Sequence[ChatMessage], *, fresh: bool) -> str:
    """What the agent is told: the user messages after the last assistant message (the earlier ones are in
    its session already). A fresh session also gets the client's instructions and any earlier exchange."""
    last_answer = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
    new = [m.text for m in messages[last_answer + 1 :] if m.role == "user" and m.text.strip()]
    if not new:
        message = "The last message must come from the user: there is nothing new for the agent to answer."
        raise OpenAiError(400, message, param="messages")
    parts = []
    if fresh:
        instructions = [m.text for m in messages if m.role in INSTRUCTION_ROLES and m.text.strip()]
        if instructions:
            parts.append("Instructions from the client:\n" + "\n\n".join(instructions))
        earlier = [m for m in messages[: last_answer + 1] if m.role in ("user", "assistant") and m.text]
        if earlier:
            said = "\n".join(f"{m.role}: {m.text}" for m in earlier)
            parts.append(f"Earlier in this conversation:\n{said}")
    parts.append("\n\n".join(new))
    return "\n\n".join(parts)


class AnswerText:
    """The answer as the client reads it, piece by piece from the engine's events: the agent's words, a blank
    line between its messages and, when asked, a Markdown line per tool call (as the chat shows them)."""

    def __init__(self, *, tool_lines: bool) -> None:
        self.tool_lines = tool_lines
        self.written = False  # any piece so far
        self._break = False  # a paragraph ended: the next piece starts a new one

    def piece(self, event: AgentEvent) -> str | None:
        if isinstance(event, TextDelta) and event.text:
            return self._next(event.text)
        if isinstance(event, MessageCompleted):
            self._break = self._break or self.written
        elif isinstance(event, ToolStarted) and self.tool_lines:
            return self.paragraph(f"`● {_one_line(event.summary)}`")
        return None

    def paragraph(self, text: str) -> str:
        """A finished paragraph written elsewhere (a team's combined answers)."""
        self._break = self.written
        piece = self._next(text.strip())
        self._break = True
        return piece

    def _next(self, text: str) -> str:
        piece = f"\n\n{text}" if self._break and self.written else text
        self._break, self.written = False, True
        return piece


def _one_line(text: str) -> str:
    line = (text.strip().splitlines() or [""])[0].replace("`", "'")
    return line if len(line) <= MAX_TOOL_LINE_CHARS else line[: MAX_TOOL_LINE_CHARS - 1] + "…"


def usage_json(usage: Usage) -> dict[str, Any]:
    """Tokens as OpenAI counts them: prompt tokens include those read from or written to the cache."""
    prompt = usage.input + usage.cache_read + usage.cache_write
    return {
        "prompt_tokens": prompt,
        "completion_tokens": usage.output,
        "total_tokens": prompt + usage.output,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read},
    }


def model_json(name: str, created: int) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": created, "owned_by": OWNER}


def models_json(names: Sequence[str], created: int) -> dict[str, Any]:
    return {"object": "list", "data": [model_json(name, created) for name in names]}


@dataclass(frozen=True, slots=True)
class Completion:
    """One answer's identity: every chunk of a stream carries the same id, model and time."""

    id: str
    model: str
    created: int

    def message(self, text: str, usage: Usage) -> dict[str, Any]:
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": text, "refusal": None},
            "finish_reason": "stop",
            "logprobs": None,
        }
        return {**self._head("chat.completion"), "choices": [choice], "usage": usage_json(usage)}

    def chunk(self, delta: Mapping[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": dict(delta), "finish_reason": finish_reason, "logprobs": None}
        return {**self._head("chat.completion.chunk"), "choices": [choice]}

    def usage_chunk(self, usage: Usage) -> dict[str, Any]:
        """The last chunk when `stream_options.include_usage` is set: no choices, the whole turn's usage."""
        return {**self._head("chat.completion.chunk"), "choices": [], "usage": usage_json(usage)}

    def _head(self, kind: str) -> dict[str, Any]:
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model}
