"""What the summarizer is asked: its instructions, and the conversation as plain text within its window."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from miniroom.llm import AssistantMessage, Message, TextContent, ToolResultMessage, UserMessage

TOOL_RESULT_CHARS = (2_000, 400, 0)  # how much of each tool result the summarizer reads, tried in turn

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

SPLIT_TURN_NOTE = (
    "The conversation ends in the middle of the user's latest request: under Progress, say what has been "
    "done on it so far and what was learned (the turn so far). The request itself stays in the conversation."
)


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


def _transcript_lines(messages: Sequence[Message], result_chars: int) -> list[str]:
    lines: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            lines.append(f"[User]: {_text_of(message)}")
        elif isinstance(message, ToolResultMessage):
            text = _text_of(message)
            if len(text) > result_chars:
                text = text[:result_chars] + f"… [{len(text) - result_chars} more characters]"
            status = " (error)" if message.is_error else ""
            lines.append(f"[Tool result{status}]: {text}")
        else:
            if message.text:
                lines.append(f"[Assistant]: {message.text}")
            for call in message.tool_calls:
                lines.append(
                    f"[Assistant calls {call.name}]: {json.dumps(call.arguments, ensure_ascii=False)}"
                )
    return lines


def transcript(messages: Sequence[Message], limit_chars: int | None = None) -> str:
    """The conversation as plain text: the summarizer needs no tool definitions to read it. Within
    `limit_chars`, tool results are read shorter, then the middle is left out with a note: the beginning
    holds what the user asked for, the end what happened last."""
    text = ""
    for result_chars in TOOL_RESULT_CHARS:
        text = "\n\n".join(_transcript_lines(messages, result_chars))
        if limit_chars is None or len(text) <= limit_chars:
            return text
    assert limit_chars is not None
    head = limit_chars // 4
    cut = len(text) - limit_chars
    return f"{text[:head]}\n\n[… {cut} characters of the conversation left out …]\n\n{text[head + cut :]}"


def summary_request(
    messages: Sequence[Message],
    previous_summary: str | None,
    limit_chars: int | None = None,
    split_turn: bool = False,
) -> UserMessage:
    parts = []
    if previous_summary:
        parts.append(
            f"An earlier summary of the beginning of this session:\n<summary>\n{previous_summary}\n</summary>"
        )
    parts.append(f"<conversation>\n{transcript(messages, limit_chars)}\n</conversation>")
    if split_turn:
        parts.append(SPLIT_TURN_NOTE)
    parts.append("Summarize the session so far as instructed.")
    return UserMessage.of_text("\n\n".join(parts))


def bounded_summary(summary: str, limit_chars: int) -> str:
    """A summary no longer than `limit_chars`, cut with a note when the model wrote more."""
    if len(summary) <= limit_chars:
        return summary
    return summary[:limit_chars] + f"\n[… summary cut: {len(summary) - limit_chars} more characters]"
