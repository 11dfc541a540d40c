"""Compaction: when the context nears the model's window, older turns become one structured summary."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from miniroom.llm import (
    AssistantMessage,
    ImageContent,
    Message,
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
