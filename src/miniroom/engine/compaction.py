"""Compaction: when the context nears the model's window, older turns become one structured summary.

The decisions are pure functions; `Compactor` carries them out for one agent: it keeps the running token
estimate of the agent's context and, when asked, has the model summarize the older part into the session.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from miniroom.engine.events import Compacted
from miniroom.engine.session import Session
from miniroom.engine.tool import Tool
from miniroom.llm import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    RequestOptions,
    StreamDone,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    message_from_dict,
)

RESERVE_TOKENS = 16_384  # room left for the next answer before compaction starts
KEEP_RECENT_TOKENS = 20_000  # the newest turns stay verbatim
IMAGE_TOKENS = 1_200
TOOL_RESULT_CHARS = 2_000  # how much of each tool result the summarizer reads

SUMMARIZER_PROMPT = """\
You are summarizing a coding session so that it can continue with a fresh context. Write a concise summary in
Markdown with exactly these sections:
## Goal
What the user wants, in their words where it matters.
## Decisions
Constraints, preferences and decisions made so far, and why.
## Progress
What is done, what is in progress, and what failed.
## Next steps
What should happen next, in order.
## Files
Files read and files modified, with one line each on what matters about them.
Keep every detail needed to continue the work (names, paths, commands, error messages). Do not continue the
conversation; only summarize it."""


def estimate_tokens(message: Message) -> int:
    """A rough count (characters / 4); `token_ratio` calibrates it against what the provider reports."""
    chars = 0
    images = 0
    for block in message.content:
        if isinstance(block, TextContent):
            chars += len(block.text)
        elif isinstance(block, ThinkingContent):
            chars += len(block.thinking)
        elif isinstance(block, ToolCall):
            chars += len(block.name) + len(json.dumps(block.arguments))
        elif isinstance(block, ImageContent):
            images += 1
    return chars // 4 + images * IMAGE_TOKENS


def estimate_text_tokens(text: str) -> int:
    return len(text) // 4


def last_reported(messages: Sequence[Message], usage_valid_from: int = 0) -> tuple[int, int] | None:
    """(index, tokens) of the newest answer whose usage measured the context as it is now.

    Usage reported before `usage_valid_from` measured a context that a compaction has since replaced."""
    for index in range(len(messages) - 1, usage_valid_from - 1, -1):
        message = messages[index]
        if isinstance(message, AssistantMessage) and message.stop_reason not in ("error", "aborted"):
            usage = message.usage
            reported = usage.input + usage.cache_read + usage.cache_write + usage.output
            if reported:
                return index, reported
    return None


def token_ratio(reported: int, estimated: int) -> float:
    """How many tokens the provider counted per estimated token of the same context: CJK text or base64 is
    far more tokens than characters / 4. At least 1: an estimate is never trusted below characters / 4."""
    return max(1.0, reported / estimated) if estimated > 0 else 1.0


def context_tokens(messages: Sequence[Message], usage_valid_from: int = 0, ratio: float = 1.0) -> int:
    """Tokens of the context: the last reported usage, plus the estimate (times `ratio`, see `token_ratio`)
    of what came after it; the whole estimate when nothing was reported."""
    last = last_reported(messages, usage_valid_from)
    if last is None:
        return round(ratio * sum(estimate_tokens(m) for m in messages))
    index, reported = last
    return reported + round(ratio * sum(estimate_tokens(m) for m in messages[index + 1 :]))


def needs_compaction(
    messages: Sequence[Message],
    context_window: int,
    usage_valid_from: int = 0,
    ratio: float = 1.0,
    reserve: int = RESERVE_TOKENS,
) -> bool:
    tokens = context_tokens(messages, usage_valid_from, ratio)
    return tokens > max(context_window - reserve, context_window // 2)


def choose_first_kept(
    entries: Sequence[dict[str, Any]], keep_recent_tokens: int = KEEP_RECENT_TOKENS, ratio: float = 1.0
) -> int:
    """Index of the first entry kept verbatim: a user message, so no tool call is split from its result.

    `ratio` (see `token_ratio`) turns the estimate of each message into the provider's count."""
    kept = 0.0
    cut = 0  # no user message to cut at: nothing can be compacted
    for index in range(len(entries) - 1, -1, -1):
        message = entries[index]["message"]
        kept += estimate_tokens(message_from_dict(message)) * ratio
        if message.get("role") == "user":
            cut = index
            if kept >= keep_recent_tokens:
                break
    return cut


@dataclass
class FileActivity:
    read: set[str] = field(default_factory=set)
    modified: set[str] = field(default_factory=set)

    def render(self) -> str:
        lines = []
        if self.read - self.modified:
            lines.append("Read: " + ", ".join(sorted(self.read - self.modified)))
        if self.modified:
            lines.append("Modified: " + ", ".join(sorted(self.modified)))
        return "\n".join(lines)


def file_activity(messages: Sequence[Message]) -> FileActivity:
    activity = FileActivity()
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            path = call.arguments.get("path")
            if not isinstance(path, str):
                continue
            if call.name == "read":
                activity.read.add(path)
            elif call.name in ("write", "edit"):
                activity.modified.add(path)
    return activity


def _text_of(message: Message) -> str:
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


def transcript(messages: Sequence[Message]) -> str:
    """The conversation as plain text: the summarizer needs no tool definitions to read it."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            lines.append(f"[User]: {_text_of(message)}")
        elif isinstance(message, ToolResultMessage):
            text = _text_of(message)
            if len(text) > TOOL_RESULT_CHARS:
                text = text[:TOOL_RESULT_CHARS] + f"… [{len(text) - TOOL_RESULT_CHARS} more characters]"
            status = " (error)" if message.is_error else ""
            lines.append(f"[Tool result{status}]: {text}")
        else:
            if message.text:
                lines.append(f"[Assistant]: {message.text}")
            for call in message.tool_calls:
                lines.append(
                    f"[Assistant calls {call.name}]: {json.dumps(call.arguments, ensure_ascii=False)}"
                )
    return "\n\n".join(lines)


def summary_request(messages: Sequence[Message], previous_summary: str | None) -> UserMessage:
    parts = []
    if previous_summary:
        parts.append(
            f"An earlier summary of the beginning of this session:\n<summary>\n{previous_summary}\n</summary>"
        )
    parts.append(f"<conversation>\n{transcript(messages)}\n</conversation>")
    parts.append("Summarize the session so far as instructed.")
    return UserMessage.of_text("\n\n".join(parts))


class RequestSettings(Protocol):
    """What the agent sends with every request (its `AgentConfig`), as far as compaction needs it."""

    @property
    def model(self) -> Model: ...
    @property
    def system_prompt(self) -> str: ...
    @property
    def tools(self) -> Sequence[Tool]: ...
    @property
    def request_options(self) -> RequestOptions: ...


# Sends one summary request; None when the turn was aborted meanwhile.
Summarize = Callable[[Context, RequestOptions], Awaitable[StreamDone | None]]


def running_estimates(messages: Sequence[Message]) -> list[int]:
    """`[i]`: the estimated tokens of `messages[:i]`."""
    totals = [0]
    for message in messages:
        totals.append(totals[-1] + estimate_tokens(message))
    return totals


class Compactor:
    """The token count of one agent's context, kept as messages are added, and the compaction of it."""

    def __init__(self, session: Session, messages: Sequence[Message]) -> None:
        self.session = session
        self._estimates = running_estimates(messages)
        self._ratio = 1.0  # the provider's tokens per estimated token, as last measured
        self._overhead: tuple[RequestSettings, int] | None = (
            None  # the estimate for the settings it was made for
        )
        # after a compaction, the kept messages' reported usage measured the old, longer context
        self._usage_valid_from = len(messages) if session.latest("compaction") else 0

    def added(self, message: Message) -> None:
        """Count a message the agent appended to its context."""
        self._estimates.append(self._estimates[-1] + estimate_tokens(message))

    def due(self, messages: Sequence[Message], settings: RequestSettings) -> bool:
        """Whether the context is too near the model's window for the next request."""
        ratio = self._calibrated_ratio(messages, settings)
        return needs_compaction(messages, settings.model.context_window, self._usage_valid_from, ratio)

    async def compact(
        self, reason: str, messages: Sequence[Message], settings: RequestSettings, summarize: Summarize
    ) -> tuple[Compacted, list[Message]] | None:
        """Summarize the older part of the context into a compaction entry of the session: the event to
        tell and the context that remains; None when nothing was done."""
        previous, entries = self.session.context_entries()
        window = settings.model.context_window
        # on overflow the provider refused this context: keep only the current turn verbatim
        keep = 0 if reason == "overflow" else min(KEEP_RECENT_TOKENS, window // 4)
        ratio = self._calibrated_ratio(messages, settings)
        cut = choose_first_kept(entries, keep, ratio)
        if cut == 0:
            return None
        older = [message_from_dict(entry["message"]) for entry in entries[:cut]]
        request = Context(SUMMARIZER_PROMPT, [summary_request(older, previous)])
        done = await summarize(request, replace(settings.request_options, thinking_level="off"))
        if done is None or done.error is not None or not done.message.text.strip():
            return None
        summary = "\n\n".join(
            part for part in (done.message.text.strip(), file_activity(older).render()) if part
        )
        tokens_before = context_tokens(messages, self._usage_valid_from, ratio)
        first_kept = entries[cut]["id"] if cut < len(entries) else None
        self.session.append(
            "compaction", summary=summary, firstKeptEntryId=first_kept, tokensBefore=tokens_before
        )
        remaining = self.session.messages()
        self._estimates = running_estimates(remaining)
        self._usage_valid_from = len(remaining)
        tokens_after = context_tokens(remaining, self._usage_valid_from, ratio)
        return Compacted(reason, tokens_before, tokens_after, summary), remaining

    def _calibrated_ratio(self, messages: Sequence[Message], settings: RequestSettings) -> float:
        """Provider tokens per estimated token, from its newest count of this context (else the last one)."""
        last = last_reported(messages, self._usage_valid_from)
        if last is not None:
            index, reported = last
            estimated = self._overhead_tokens(settings) + self._estimates[index + 1]
            self._ratio = token_ratio(reported, estimated)
        return self._ratio

    def _overhead_tokens(self, settings: RequestSettings) -> int:
        """The estimate of what every request carries besides the messages: the prompt and tool schemas."""
        if self._overhead is None or self._overhead[0] is not settings:
            schemas = json.dumps([asdict(tool.spec) for tool in settings.tools])
            tokens = estimate_text_tokens(settings.system_prompt) + estimate_text_tokens(schemas)
            self._overhead = (settings, tokens)
        return self._overhead[1]
