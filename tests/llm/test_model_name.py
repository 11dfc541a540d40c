"""Parsing `provider/model:thinking` names: ids with slashes and colons, every level, and bad names."""

from __future__ import annotations

import pytest

from miniroom.llm.model import THINKING_LEVELS
from miniroom.llm.model_name import ModelConfigError, ModelName, parse_model_name

VALID_NAMES = [
    ("anthropic/claude-sonnet-5", ModelName("anthropic", "claude-sonnet-5", None)),
    ("anthropic/claude-sonnet-5:medium", ModelName("anthropic", "claude-sonnet-5", "medium")),
    (
        "openrouter/anthropic/claude-sonnet-5:high",
        ModelName("openrouter", "anthropic/claude-sonnet-5", "high"),
    ),
    ("openrouter/anthropic/claude-sonnet-5", ModelName("openrouter", "anthropic/claude-sonnet-5", None)),
    ("ollama/qwen3:8b", ModelName("ollama", "qwen3:8b", None)),
    ("ollama/qwen3:8b:low", ModelName("ollama", "qwen3:8b", "low")),
    ("openrouter/openai/gpt-5:free", ModelName("openrouter", "openai/gpt-5:free", None)),
    ("openrouter/openai/gpt-5:free:xhigh", ModelName("openrouter", "openai/gpt-5:free", "xhigh")),
    ("deepseek/deepseek-v4-flash:HIGH", ModelName("deepseek", "deepseek-v4-flash", "high")),
    ("  deepseek/deepseek-v4-flash:off\n", ModelName("deepseek", "deepseek-v4-flash", "off")),
]


@pytest.mark.parametrize(("text", "expected"), VALID_NAMES)
def test_valid_names(text: str, expected: ModelName) -> None:
    assert parse_model_name(text) == expected


@pytest.mark.parametrize("level", THINKING_LEVELS)
def test_every_thinking_level_is_a_suffix(level: str) -> None:
    parsed = parse_model_name(f"openai/gpt-5:{level}")
    assert (parsed.model_id, parsed.thinking) == ("gpt-5", level)


def test_a_name_without_provider_takes_the_default_provider() -> None:
    assert parse_model_name("qwen3:8b:max", default_provider="ollama") == ModelName(
        "ollama", "qwen3:8b", "max"
    )


def test_an_explicit_provider_wins_over_the_default() -> None:
    assert parse_model_name("openai/gpt-5", default_provider="ollama").provider == "openai"


def test_ref_joins_provider_and_model() -> None:
    assert parse_model_name("openrouter/x-ai/grok-5:low").ref == "openrouter/x-ai/grok-5"


BAD_NAMES = [
    ("", "The model name is empty"),
    ("   ", "The model name is empty"),
    ("anthropic/", 'The model name "anthropic/" has no model after "/"'),
    ("/claude-sonnet-5", 'The model name "/claude-sonnet-5" has no provider before "/"'),
    (":high", 'The model name ":high" has only a thinking level'),
    ("anthropic/:high", 'The model name "anthropic/:high" has no model after "/"'),
    ("anthropic/claude-sonnet-5:", 'ends with ":" but no thinking level'),
    ("claude-sonnet-5", 'The model name "claude-sonnet-5" has no provider'),
    ("anthropic/claude sonnet", 'The model name "anthropic/claude sonnet" contains spaces'),
]


@pytest.mark.parametrize(("text", "problem"), BAD_NAMES)
def test_bad_names_explain_the_expected_form(text: str, problem: str) -> None:
    with pytest.raises(ModelConfigError) as caught:
        parse_model_name(text)
    message = str(caught.value)
    assert problem in message
    assert 'expected "provider/model" or "provider/model:thinking"' in message
    assert '"anthropic/claude-sonnet-5:high"' in message
    assert "off, minimal, low, medium, high, xhigh, max" in message


def test_a_name_without_provider_suggests_mini_provider() -> None:
    with pytest.raises(ModelConfigError, match="set MINI_PROVIDER"):
        parse_model_name("gpt-5")


def test_model_config_error_is_a_value_error() -> None:
    assert issubclass(ModelConfigError, ValueError)


@pytest.mark.parametrize(
    ("text", "meant"),
    [("anthropic/claude-sonnet-5:hgih", "high"), ("openai/gpt-5:medum", "medium"), ("x/y:xhi", "xhigh")],
)
def test_a_misspelled_level_is_an_error_naming_the_levels(text: str, meant: str) -> None:
    with pytest.raises(ModelConfigError) as caught:
        parse_model_name(text)
    message = str(caught.value)
    assert f"which is not a thinking level (did you mean {meant}?)" in message
    assert "off, minimal, low, medium, high, xhigh, max" in message


@pytest.mark.parametrize("tag", ["8b", "mini", "free", "latest", "70b-instruct-q4_K_M", "online"])
def test_a_model_tag_is_not_taken_for_a_level(tag: str) -> None:
    assert parse_model_name(f"ollama/phi3:{tag}") == ModelName("ollama", f"phi3:{tag}", None)
