"""The router: one model call that picks which of several candidate agents answers an untagged message."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import httpx

from miniroom.config.config_yaml import RoomsConfig
from miniroom.llm import Model, ModelConfigError, RequestOptions
from miniroom.rooms.runtime.live_config import LiveConfig, ReadsLiveConfig
from miniroom.rooms.runtime.model_call import alias_model, ask_model
from miniroom.rooms.runtime.slots import JudgmentSlots

log = logging.getLogger(__name__)
ROUTER_PROMPT = (
    "You route chat messages to agents. Given the agents and a message, answer with the name of the one "
    "agent best suited to answer it, and nothing else."
)
ROUTER_OPTIONS = RequestOptions(thinking_level="off", max_tokens=64, idle_timeout=60.0)


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str
    display_name: str
    role: str


def routing_request(candidates: Sequence[Candidate], message: str) -> str:
    listing = "\n".join(
        f"- {candidate.name} ({candidate.display_name}): {candidate.role or 'no role given'}"
        for candidate in candidates
    )
    return f"Agents:\n{listing}\n\nMessage:\n{message}\n\nWhich agent answers? Reply with its name only."


def parse_choice(answer: str, candidates: Sequence[Candidate]) -> str | None:
    """The candidate the answer names: an exact name, else the first (display) name it contains."""
    cleaned = answer.strip().strip("`*\"'.@ ").casefold()
    for candidate in candidates:
        if cleaned in (candidate.name.casefold(), candidate.display_name.casefold()):
            return candidate.name
    positions = []
    for candidate in candidates:
        for name in (candidate.name, candidate.display_name):
            match = re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", answer.casefold())
            if match:
                positions.append((match.start(), candidate.name))
    return min(positions)[1] if positions else None


async def choose_agent(
    model: Model, candidates: Sequence[Candidate], message: str, client: httpx.AsyncClient | None = None
) -> str | None:
    """Ask `model` which candidate answers `message`; None when the call fails or names nobody."""
    question = routing_request(candidates, message)
    answer = await ask_model(model, question, ROUTER_OPTIONS, system_prompt=ROUTER_PROMPT, client=client)
    if answer.failure is not None:
        log.warning("The router model failed: %s", answer.failure)
        return None
    choice = parse_choice(answer.text, candidates)
    if choice is None:
        log.warning("The router answered %r, which names no candidate", answer.text[:200])
    return choice


class Router(ReadsLiveConfig):
    """Picks one agent among candidates with `router.model`, else `defaults.model`, else the engine's
    default model (MODEL, else deepseek/deepseek-v4-flash); the first candidate when that fails or when
    the judgment limit is full (a routing is a judgment too, bound by the process-wide limit)."""

    def __init__(
        self, config: RoomsConfig | LiveConfig, env: Mapping[str, str], slots: JudgmentSlots
    ) -> None:
        self.read_config(config)
        self.env, self.slots = env, slots

    async def choose(self, candidates: Sequence[str], message: str) -> str:
        """The chosen candidate's name; the first candidate when the model cannot be used or names nobody."""
        fallback = candidates[0]
        alias = self.config.router.model or self.config.defaults.model
        try:
            model = alias_model(self.config, alias, self.env)
        except ModelConfigError as error:
            where = f"The router model {alias}" if alias else "The router's default model (no router.model)"
            log.warning("%s cannot be used, so %s answers: %s", where, fallback, error)
            return fallback
        listed = [self._candidate(name) for name in candidates]
        with self.slots.taken(None) as free:
            if not free:
                log.warning("The judgment limit is full, so %s answers without the router", fallback)
                return fallback
            chosen = await choose_agent(model, listed, message)
        return chosen if chosen is not None else fallback

    def _candidate(self, name: str) -> Candidate:
        entry = self.config.agents.get(name) or self.config.teams[name]
        return Candidate(name, entry.display_name or name, entry.role)
