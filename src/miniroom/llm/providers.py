"""Ready provider templates: where each provider lives, how it authenticates, and its flagship models."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from miniroom.llm.model import Api, AuthType, ModelCost

DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_TOKENS = 32_000


@dataclass(frozen=True)
class KnownModel:
    """What a template knows about one model; prices are US dollars per million tokens."""

    id: str
    name: str
    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_tokens: int = DEFAULT_MAX_TOKENS
    reasoning: bool = True
    accepts_images: bool = False
    cost: ModelCost = field(default_factory=ModelCost)


@dataclass(frozen=True)
class ProviderTemplate:
    id: str
    name: str
    api: Api
    base_url: str  # anthropic-messages: without /v1; openai-completions: with the version path
    auth: AuthType
    key_variable: str
    models: Mapping[str, KnownModel] = field(default_factory=dict)


def _models(*models: KnownModel) -> dict[str, KnownModel]:
    return {model.id: model for model in models}


_ANTHROPIC_MODELS = _models(
    KnownModel(
        "claude-sonnet-5", "Claude Sonnet 5", 1_000_000, 128_000, True, True, ModelCost(3.0, 15.0, 0.3, 3.75)
    ),
    KnownModel(
        "claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, True, True, ModelCost(3.0, 15.0, 0.3, 3.75)
    ),
    KnownModel(
        "claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, True, True, ModelCost(5.0, 25.0, 0.5, 6.25)
    ),
    KnownModel(
        "claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, True, True, ModelCost(1.0, 5.0, 0.1, 1.25)
    ),
)

# DeepSeek's list prices (cache miss / output / cache hit); its 1M window and 384,000 output tokens.
_DEEPSEEK_MODELS = _models(
    KnownModel(
        "deepseek-v4-flash",
        "DeepSeek V4 Flash",
        1_048_576,
        384_000,
        True,
        False,
        ModelCost(0.14, 0.28, 0.0028),
    ),
    KnownModel(
        "deepseek-v4-pro",
        "DeepSeek V4 Pro",
        1_048_576,
        384_000,
        True,
        False,
        ModelCost(0.435, 0.87, 0.003625),
    ),
)

_OPENAI_MODELS = _models(
    KnownModel("gpt-5", "GPT-5", 400_000, 128_000, True, True, ModelCost(1.25, 10.0, 0.125)),
)

# DeepSeek also offers an Anthropic-compatible endpoint, but OpenAI Chat Completions is its primary,
# fully documented surface (thinking and reasoning_effort are controlled there).
_TEMPLATES: tuple[ProviderTemplate, ...] = (
    ProviderTemplate(
        "anthropic",
        "Anthropic",
        "anthropic-messages",
        "https://api.anthropic.com",
        "api-key",
        "ANTHROPIC_API_KEY",
        _ANTHROPIC_MODELS,
    ),
    ProviderTemplate(
        "deepseek",
        "DeepSeek",
        "openai-completions",
        "https://api.deepseek.com/v1",
        "bearer",
        "DEEPSEEK_API_KEY",
        _DEEPSEEK_MODELS,
    ),
    # z.ai and BigModel document their Anthropic endpoints with a bearer token (ANTHROPIC_AUTH_TOKEN).
    ProviderTemplate(
        "zai", "Z.ai", "anthropic-messages", "https://api.z.ai/api/anthropic", "bearer", "ZAI_API_KEY"
    ),
    ProviderTemplate(
        "bigmodel",
        "BigModel",
        "anthropic-messages",
        "https://open.bigmodel.cn/api/anthropic",
        "bearer",
        "BIGMODEL_API_KEY",
    ),
    ProviderTemplate(
        "openrouter",
        "OpenRouter",
        "openai-completions",
        "https://openrouter.ai/api/v1",
        "bearer",
        "OPENROUTER_API_KEY",
    ),
    ProviderTemplate("xai", "xAI", "openai-completions", "https://api.x.ai/v1", "bearer", "XAI_API_KEY"),
    # MiniMax's Anthropic endpoint keeps thinking in its own blocks; its OpenAI one inlines <think> tags.
    ProviderTemplate(
        "minimax",
        "MiniMax",
        "anthropic-messages",
        "https://api.minimax.io/anthropic",
        "api-key",
        "MINIMAX_API_KEY",
    ),
    ProviderTemplate(
        "moonshot",
        "Moonshot",
        "openai-completions",
        "https://api.moonshot.ai/v1",
        "bearer",
        "MOONSHOT_API_KEY",
    ),
    ProviderTemplate(
        "openai",
        "OpenAI",
        "openai-completions",
        "https://api.openai.com/v1",
        "bearer",
        "OPENAI_API_KEY",
        _OPENAI_MODELS,
    ),
    ProviderTemplate(
        "opencode-go",
        "OpenCode Go",
        "openai-completions",
        "https://opencode.ai/zen/go/v1",
        "bearer",
        "OPENCODE_API_KEY",
    ),
    ProviderTemplate(
        "opencode-zen",
        "OpenCode Zen",
        "openai-completions",
        "https://opencode.ai/zen/v1",
        "bearer",
        "OPENCODE_API_KEY",
    ),
)

TEMPLATES: Mapping[str, ProviderTemplate] = {template.id: template for template in _TEMPLATES}


def get_template(provider: str) -> ProviderTemplate | None:
    return TEMPLATES.get(provider)


def known_providers() -> list[str]:
    """The ids of the ready provider templates, in a stable order."""
    return [template.id for template in _TEMPLATES]


def default_auth(api: Api) -> AuthType:
    """How a protocol authenticates unless told otherwise: Anthropic by x-api-key, OpenAI by bearer."""
    return "api-key" if api == "anthropic-messages" else "bearer"
