"""Clearing old tool output: the cheap way to make room, before anything is summarized.

A cleared result keeps its place (the call and its result stay paired) and says what it was and how to get
it again; the session keeps the full text, and records the replacement texts so a resume sends the same.
Pure: messages in, replacement texts out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from miniroom.engine.context_size import estimate_tokens
from miniroom.llm import AssistantMessage, Message, TextContent, ToolCall, ToolResultMessage

KEEP_RECENT_ROUNDS = 3  # the newest rounds' output stays, within `keep_tokens`
MIN_CLEARED_TOKENS = 250  # smaller output is not worth a stub
TRUNCATED_KEEP_CHARS = 8_000  # what a truncated result keeps of its head and tail together
_AGAIN = {"bash": "run it again", "parallel_bash": "run it again", "read": "read it again"}
_SUBJECT_KEYS = ("command", "path", "pattern", "url", "query", "task", "description")
_SUBJECT_CHARS = 80


def _size(chars: int) -> str:
    return f"{chars / 1024:.0f} KB" if chars >= 1024 else f"{chars} characters"


def _subject(call: ToolCall | None) -> str:
    """What the call was about, quoted: its command, path or query, else its arguments."""
    if call is None:
        return ""
    arguments: Any = call.arguments
    for key in _SUBJECT_KEYS:
        if isinstance(call.arguments.get(key), str):
            arguments = call.arguments[key]
            break
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    if len(text) > _SUBJECT_CHARS:
        text = text[: _SUBJECT_CHARS - 1] + "…"
    return " " + json.dumps(text, ensure_ascii=False)


def cleared_text(result: ToolResultMessage, call: ToolCall | None) -> str:
    """E.g. `[output of bash "pytest -q" cleared: 41 KB; run it again to see it]`."""
    again = _AGAIN.get(result.tool_name, "call it again")
    return (
        f"[output of {result.tool_name}{_subject(call)} cleared: {_size(len(result.text))}; "
        f"{again} to see it]"
    )


def truncated_text(result: ToolResultMessage, keep_chars: int = TRUNCATED_KEEP_CHARS) -> str:
    """The result's head and tail around a note of what was cut."""
    text = result.text
    half = keep_chars // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n[… {_size(cut)} of this output cut to fit the context window …]\n{text[-half:]}"


def _calls(messages: Sequence[Message]) -> dict[str, ToolCall]:
    return {
        call.id: call
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    }


def clearable_output(messages: Sequence[Message], keep_rounds: int, keep_tokens: int) -> dict[str, str]:
    """The replacement text of each result worth clearing: every result but those of the newest
    `keep_rounds` rounds whose output fits in `keep_tokens` (the newest round's is always kept)."""
    kept_rounds, kept_tokens = 0, 0
    keeping = True
    replacements: dict[str, str] = {}
    calls = _calls(messages)
    index = len(messages) - 1
    while index >= 0:
        round_end = index
        while index >= 0 and isinstance(messages[index], ToolResultMessage):
            index -= 1
        results = [m for m in messages[index + 1 : round_end + 1] if isinstance(m, ToolResultMessage)]
        if results:
            tokens = sum(estimate_tokens(m) for m in results)
            keeping = keeping and (
                kept_rounds == 0 or (kept_rounds < keep_rounds and kept_tokens + tokens <= keep_tokens)
            )
            if keeping:
                kept_rounds, kept_tokens = kept_rounds + 1, kept_tokens + tokens
            else:
                for result in results:
                    if estimate_tokens(result) >= MIN_CLEARED_TOKENS:
                        replacements[result.tool_call_id] = cleared_text(
                            result, calls.get(result.tool_call_id)
                        )
        index -= 1
    return replacements


def largest_output(messages: Sequence[Message]) -> dict[str, str]:
    """The largest result, truncated to its head and tail; empty when none is larger than that."""
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    if not results:
        return {}
    largest = max(results, key=lambda m: len(m.text))
    if len(largest.text) <= TRUNCATED_KEEP_CHARS * 2:
        return {}
    return {largest.tool_call_id: truncated_text(largest)}


def with_replacements(messages: Sequence[Message], replacements: Mapping[str, str]) -> list[Message]:
    """The messages with each replaced result's content swapped for its replacement text."""
    if not replacements:
        return list(messages)
    return [
        replaced(message, replacements[message.tool_call_id])
        if isinstance(message, ToolResultMessage) and message.tool_call_id in replacements
        else message
        for message in messages
    ]


def replaced(result: ToolResultMessage, text: str) -> ToolResultMessage:
    return ToolResultMessage(
        result.tool_call_id, result.tool_name, [TextContent(text)], result.is_error, result.timestamp
    )
