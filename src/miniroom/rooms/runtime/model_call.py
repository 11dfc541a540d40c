"""One question to a model, with no tools: the router's choice and the judgments share this."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx

from miniroom.config.config_yaml import RoomsConfig
from miniroom.llm import (
    Context,
    Model,
    ProviderFailure,
    RequestOptions,
    StreamDone,
    Usage,
    UserMessage,
    agent_dir_from_env,
    resolve_model,
    stream_response,
)
from miniroom.rooms.runtime.agents import model_choice

__all__ = ["Answer", "alias_model", "ask_model"]


@dataclass(frozen=True, slots=True)
class Answer:
    """The model's whole reply text, what it cost, and why it failed (None when it did not)."""

    text: str
    usage: Usage = field(default_factory=Usage)
    failure: ProviderFailure | None = None


def alias_model(config: RoomsConfig, alias: str | None, env: Mapping[str, str]) -> Model:
    """The model a `models:` alias names (None: the engine's default), with its credentials; raises
    ModelConfigError (MissingApiKeyError without a key) when it cannot be used."""
    choice = model_choice(config, alias, env)
    model, _thinking = resolve_model(choice.name, choice.env, agent_dir_from_env(choice.env))
    return model


async def ask_model(
    model: Model,
    question: str,
    options: RequestOptions,
    *,
    system_prompt: str = "",
    client: httpx.AsyncClient | None = None,
) -> Answer:
    """Ask `model` one question in one user message, with no tools (and no system prompt unless given)."""
    context = Context(system_prompt, [UserMessage.of_text(question)])
    async for event in stream_response(model, context, options, client):
        if isinstance(event, StreamDone):
            message = event.message
            return Answer(message.text, message.usage, event.error)
    raise RuntimeError("the model stream ended without a final message")
