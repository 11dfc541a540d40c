"""Model names of the form `provider/model:thinking`, parsed strictly and explained when wrong."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import get_close_matches

from miniroom.config.errors import UserError
from miniroom.llm.model import THINKING_LEVELS, ThinkingLevel

DEFAULT_MODEL_NAME = "deepseek/deepseek-v4-flash"
NAME_EXAMPLE = "anthropic/claude-sonnet-5:high"
EXPECTED_FORM = (
    f'expected "provider/model" or "provider/model:thinking" (e.g. "{NAME_EXAMPLE}"), '
    f"where thinking is one of {', '.join(THINKING_LEVELS)}"
)


class ModelConfigError(UserError, ValueError):
    """A model name or model configuration a person must fix; the message says what and how."""


@dataclass(frozen=True)
class ModelName:
    provider: str
    model_id: str
    thinking: ThinkingLevel | None

    @property
    def ref(self) -> str:
        return f"{self.provider}/{self.model_id}"


def parse_model_name(text: str, default_provider: str | None = None) -> ModelName:
    """Parse `provider/model:thinking`; a name without a provider takes `default_provider`."""
    name = text.strip()
    if not name:
        raise ModelConfigError(f"The model name is empty: {EXPECTED_FORM}.")
    if any(char.isspace() for char in name):
        raise ModelConfigError(f'The model name "{name}" contains spaces: {EXPECTED_FORM}.')
    rest, thinking = _split_thinking(name)
    if "/" in rest:
        provider, model_id = rest.split("/", 1)
    elif default_provider:
        provider, model_id = default_provider, rest
    else:
        raise ModelConfigError(
            f'The model name "{name}" has no provider: {EXPECTED_FORM}. '
            "Or set MINI_PROVIDER to the provider that serves it."
        )
    if not provider:
        raise ModelConfigError(f'The model name "{name}" has no provider before "/": {EXPECTED_FORM}.')
    if not model_id:
        raise ModelConfigError(f'The model name "{name}" has no model after "/": {EXPECTED_FORM}.')
    return ModelName(provider=provider, model_id=model_id, thinking=thinking)


def _split_thinking(name: str) -> tuple[str, ThinkingLevel | None]:
    """Split off a trailing `:level`; any other `:tag` (e.g. `qwen3:8b`) belongs to the model id."""
    head, colon, tail = name.rpartition(":")
    if not colon:
        return name, None
    if not tail:
        raise ModelConfigError(
            f'The model name "{name}" ends with ":" but no thinking level: {EXPECTED_FORM}.'
        )
    level = _thinking_level(tail)
    if level is None:
        _refuse_a_misspelled_level(name, tail)
        return name, None
    if not head:
        raise ModelConfigError(f'The model name "{name}" has only a thinking level: {EXPECTED_FORM}.')
    return head, level


def _refuse_a_misspelled_level(name: str, tail: str) -> None:
    """A tag this close to a level is a typo of it; other tags (`qwen3:8b`, `gpt-5:free`) name models."""
    close = get_close_matches(tail.lower(), THINKING_LEVELS, n=1, cutoff=0.75)
    if close:
        raise ModelConfigError(
            f'The model name "{name}" ends with ":{tail}", which is not a thinking level (did you mean '
            f"{close[0]}?): use one of {', '.join(THINKING_LEVELS)}."
        )


def _thinking_level(text: str) -> ThinkingLevel | None:
    lowered = text.lower()
    for level in THINKING_LEVELS:
        if level == lowered:
            return level
    return None
