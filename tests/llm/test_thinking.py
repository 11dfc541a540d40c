"""The thinking-level tables: what each protocol and server family receives for every level."""

from __future__ import annotations

import pytest

from miniroom.llm.model import THINKING_LEVELS, ThinkingLevel
from miniroom.llm.thinking import anthropic_thinking, is_deepseek, openai_reasoning_fields
from tests.llm.support import anthropic_model, openai_model

CLAUDE = anthropic_model("http://127.0.0.1:9")
GPT = openai_model("http://127.0.0.1:9/v1")
DEEPSEEK = openai_model("https://api.deepseek.com/v1", provider="custom")


@pytest.mark.parametrize(
    ("level", "effort"),
    [
        ("off", None),
        ("minimal", "minimal"),
        ("low", "low"),
        ("medium", "medium"),
        ("high", "high"),
        ("xhigh", "high"),
        ("max", "high"),
    ],
)
def test_openai_effort_per_level(level: ThinkingLevel, effort: str | None) -> None:
    expected = {"reasoning_effort": effort} if effort else {}
    assert openai_reasoning_fields(GPT, level) == expected


@pytest.mark.parametrize(
    ("level", "effort"),
    [
        ("off", None),
        ("minimal", "low"),
        ("low", "low"),
        ("medium", "high"),
        ("high", "high"),
        ("xhigh", "high"),
        ("max", "max"),
    ],
)
def test_deepseek_gets_an_explicit_switch_per_level(level: ThinkingLevel, effort: str | None) -> None:
    expected = (
        {"thinking": {"type": "enabled"}, "reasoning_effort": effort}
        if effort
        else {"thinking": {"type": "disabled"}}
    )
    assert openai_reasoning_fields(DEEPSEEK, level) == expected


def test_deepseek_is_recognised_by_provider_or_host() -> None:
    assert is_deepseek(DEEPSEEK)
    assert is_deepseek(openai_model("http://127.0.0.1:9/v1", provider="deepseek"))
    assert not is_deepseek(openai_model("https://notdeepseek.com/v1"))
    assert not is_deepseek(GPT)


def test_a_model_without_reasoning_gets_no_effort_and_deepseek_is_switched_off() -> None:
    assert openai_reasoning_fields(openai_model("http://127.0.0.1:9/v1", reasoning=False), "high") == {}
    plain_deepseek = openai_model("https://api.deepseek.com/v1", reasoning=False)
    assert openai_reasoning_fields(plain_deepseek, "high") == {"thinking": {"type": "disabled"}}


@pytest.mark.parametrize("level", [level for level in THINKING_LEVELS if level != "off"])
def test_anthropic_uses_the_budget_for_every_level_but_off(level: ThinkingLevel) -> None:
    assert anthropic_thinking(CLAUDE, level, 65536, 200_000) == {"type": "enabled", "budget_tokens": 65536}
    assert anthropic_thinking(CLAUDE, "off", 65536, 200_000) is None


@pytest.mark.parametrize(
    ("max_tokens", "budget"),
    [(200_000, 65536), (64_000, 48_000), (32_000, 24_000), (4096, 3072), (2048, 1024), (2047, None)],
)
def test_anthropic_budget_always_leaves_room_for_the_answer(max_tokens: int, budget: int | None) -> None:
    expected = {"type": "enabled", "budget_tokens": budget} if budget else None
    assert anthropic_thinking(CLAUDE, "high", 65536, max_tokens) == expected


def test_anthropic_model_without_reasoning_never_thinks() -> None:
    assert (
        anthropic_thinking(anthropic_model("http://127.0.0.1:9", reasoning=False), "max", 65536, 200_000)
        is None
    )
