"""A resolved model: where it lives, how to talk to it, what it can do and what it costs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Api = Literal["anthropic-messages", "openai-completions"]
AuthType = Literal["api-key", "bearer"]
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]

API_NAMES: tuple[Api, ...] = ("anthropic-messages", "openai-completions")
AUTH_TYPES: tuple[AuthType, ...] = ("api-key", "bearer")
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium"


@dataclass(frozen=True)
class ModelCost:
    """US dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


@dataclass(frozen=True)
class Model:
    id: str
    provider: str
    api: Api
    base_url: str  # anthropic-messages: without /v1; openai-completions: with /v1
    auth: AuthType = "bearer"
    api_key: str = field(default="", repr=False)
    name: str = ""
    reasoning: bool = True
    accepts_images: bool = False
    context_window: int = 128_000
    max_tokens: int = 32_000
    cost: ModelCost = ModelCost()
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.provider}/{self.id}"
