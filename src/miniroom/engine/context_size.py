"""How many tokens a context is: what the provider last reported, plus an estimate of what came after it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from miniroom.llm import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
)

RESERVE_TOKENS = 16_384  # room left for the next answer before compaction starts
IMAGE_TOKENS = 1_200

# Both vendors name the count they refused: "prompt is too long: 103065 tokens > 100000 maximum" (Anthropic),
# "... maximum context length is 100000 tokens. However, your messages resulted in 103065 tokens" (OpenAI).
_REFUSED_COUNT = r"(\d+) tokens > \d+|resulted in (\d+) tokens"
_REFUSED_WINDOW = r"\d+ tokens > (\d+)|maximum context length is (\d+)"


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


def running_estimates(messages: Sequence[Message]) -> list[int]:
    """`[i]`: the estimated tokens of `messages[:i]`."""
    totals = [0]
    for message in messages:
        totals.append(totals[-1] + estimate_tokens(message))
    return totals


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


def refused_tokens(error_message: str) -> tuple[int | None, int | None]:
    """The token count and the window a provider's "too long" refusal names, each if it names one."""
    counted = re.search(_REFUSED_COUNT, error_message)
    window = re.search(_REFUSED_WINDOW, error_message)
    return (
        None if counted is None else int(counted.group(1) or counted.group(2)),
        None if window is None else int(window.group(1) or window.group(2)),
    )


def context_tokens(messages: Sequence[Message], usage_valid_from: int = 0, ratio: float = 1.0) -> int:
    """Tokens of the context: the last reported usage, plus the estimate (times `ratio`, see `token_ratio`)
    of what came after it; the whole estimate when nothing was reported."""
    last = last_reported(messages, usage_valid_from)
    if last is None:
        return round(ratio * sum(estimate_tokens(m) for m in messages))
    index, reported = last
    return reported + round(ratio * sum(estimate_tokens(m) for m in messages[index + 1 :]))


def compaction_threshold(context_window: int, reserve: int = RESERVE_TOKENS) -> int:
    """Past this many tokens the next request would leave the answer too little room."""
    return max(context_window - reserve, context_window // 2)


def needs_compaction(
    messages: Sequence[Message],
    context_window: int,
    usage_valid_from: int = 0,
    ratio: float = 1.0,
    reserve: int = RESERVE_TOKENS,
) -> bool:
    tokens = context_tokens(messages, usage_valid_from, ratio)
    return tokens > compaction_threshold(context_window, reserve)
