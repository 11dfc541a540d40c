"""Switching a running agent's model or thinking level mid-dialog, losing nothing."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping

from miniroom.agent.assembly import record_model, request_options
from miniroom.agent.session_settings import session_settings
from miniroom.engine import (
    Agent,
)
from miniroom.llm import (
    THINKING_LEVELS,
    Model,
    ModelConfigError,
    ThinkingLevel,
    agent_dir_from_env,
    env_value,
    known_providers,
    resolve_model,
)

log = logging.getLogger(__name__)


def _apply(agent: Agent, model: Model, thinking: ThinkingLevel) -> None:
    settings = session_settings(agent.session)
    record_model(agent.session, model, thinking)
    options = request_options(model, settings, thinking, agent.session)
    agent.config = dataclasses.replace(agent.config, model=model, request_options=options)


def switch_model(agent: Agent, name: str, env: Mapping[str, str]) -> None:
    """Switch the model mid-dialog, losing nothing; a `:level` suffix switches thinking too."""
    if "/" not in name and not env_value(env, "MINI_PROVIDER"):
        # Without MINI_PROVIDER a bare name would become a `custom` model at MINI_BASE_URL: a typo then
        # only shows at the next request, so the switch must name the provider.
        current = agent.config.model
        raise ModelConfigError(
            f'"{name}" names no provider: write provider/model, e.g. "{current.provider}/{name}" (now '
            f"{current.ref}), or set MINI_PROVIDER. Providers: {', '.join(known_providers())}."
        )
    model, suffix = resolve_model(name, env, agent_dir_from_env(env))
    settings = session_settings(agent.session)
    _apply(agent, model, settings.thinking_level or suffix or agent.config.request_options.thinking_level)


def switch_thinking(agent: Agent, level: str) -> None:
    settings = session_settings(agent.session)
    if level not in THINKING_LEVELS:
        raise ValueError(f"Unknown thinking level '{level}': use one of {', '.join(THINKING_LEVELS)}.")
    if settings.thinking_level and settings.thinking_level != level:
        raise ValueError(
            f"The profile sets thinkingLevel: {settings.thinking_level}, which wins over /thinking."
        )
    _apply(agent, agent.config.model, level)
