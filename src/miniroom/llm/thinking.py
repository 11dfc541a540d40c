"""Thinking levels as each protocol and server family spells them."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from miniroom.llm.model import Model, ThinkingLevel

ANTHROPIC_MIN_BUDGET = 1024  # the smallest budget_tokens the API accepts

# Not every OpenAI model accepts "none" for off, so off sends no effort: the model's default applies.
OPENAI_EFFORT: dict[ThinkingLevel, str | None] = {
    "off": None,
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
    "max": "high",
}

# DeepSeek knows low/high/max (it maps minimal->low, medium->high itself); off is `thinking: disabled`.
DEEPSEEK_EFFORT: dict[ThinkingLevel, str | None] = {
    "off": None,
    "minimal": "low",
    "low": "low",
    "medium": "high",
    "high": "high",
    "xhigh": "high",
    "max": "max",
}


def anthropic_thinking(
    model: Model, level: ThinkingLevel, budget: int, max_tokens: int
) -> dict[str, Any] | None:
    """The `thinking` field, or None to leave thinking off; the budget always leaves room for the answer."""
    if level == "off" or not model.reasoning:
        return None
    # budget_tokens counts toward max_tokens: keep a quarter (at least the minimum budget) for the answer.
    budget = min(budget, max_tokens - max(ANTHROPIC_MIN_BUDGET, max_tokens // 4))
    if budget < ANTHROPIC_MIN_BUDGET:
        return None
    return {"type": "enabled", "budget_tokens": budget}


def is_deepseek(model: Model) -> bool:
    host = urlsplit(model.base_url).hostname or ""
    return model.provider == "deepseek" or host == "deepseek.com" or host.endswith(".deepseek.com")


def openai_reasoning_fields(model: Model, level: ThinkingLevel) -> dict[str, Any]:
    """Fields to merge into a chat/completions body for this level."""
    if is_deepseek(model):
        # DeepSeek thinks by default, so a level that means "less" or "none" must be sent explicitly.
        effort = DEEPSEEK_EFFORT[level] if model.reasoning else None
        if effort is None:
            return {"thinking": {"type": "disabled"}}
        return {"thinking": {"type": "enabled"}, "reasoning_effort": effort}
    effort = OPENAI_EFFORT[level] if model.reasoning else None
    return {"reasoning_effort": effort} if effort else {}
