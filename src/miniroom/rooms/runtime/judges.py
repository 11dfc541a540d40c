"""Judgments: asking a backend (a model, TypeSafe, or the agent's own reply model) one yes/no question.

Every judgment takes a slot of the process-wide limit first (failing at once when it is full), runs within
its timeout, and is logged with its outcome; a failure is an outcome, never an exception.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Protocol

from miniroom.config.config_yaml import LlmJudgment, RoomsConfig, TypesafeJudgment, judgments
from miniroom.llm import MissingApiKeyError, ModelConfigError, RequestOptions, native_tools, parse_model_name
from miniroom.rooms.decide import Judge, Respond, ResponseReason, SilenceReason, Silent
from miniroom.rooms.events import RoomEvent
from miniroom.rooms.judge_context import JudgeRequest, participation_request, participation_skip, raw_of
from miniroom.rooms.judgment import (
    Backend,
    Failure,
    Outcome,
    Verdict,
    parse_answer,
    participation_steps,
    probability_verdict,
    settle,
)
from miniroom.rooms.runtime.agents import model_choice
from miniroom.rooms.runtime.facts import RoomFacts
from miniroom.rooms.runtime.live_config import LiveConfig, ReadsLiveConfig
from miniroom.rooms.runtime.logs import log_judgment, log_participation_skip
from miniroom.rooms.runtime.metrics import RoomMetrics
from miniroom.rooms.runtime.model_call import alias_model, ask_model
from miniroom.rooms.runtime.slots import JudgmentSlots
from miniroom.rooms.runtime.typesafe import KEY_VARIABLE, TypesafeClient
from miniroom.rooms.transport import Event, RoomTransport

log = logging.getLogger(__name__)

JUDGE_OPTIONS = RequestOptions(
    thinking_level="off", max_tokens=16, first_byte_timeout=60.0, idle_timeout=60.0
)
REPLY_MODEL_TIMEOUT = 30.0  # seconds for the reply model's judgment when no backend sets one
JudgmentConfig = LlmJudgment | TypesafeJudgment


class Judgment(Protocol):
    """Decides for one agent whether it answers `events` (judged together); a failure keeps it quiet."""

    async def judge(self, agent: str, events: tuple[RoomEvent, ...], request: Judge) -> Respond | Silent: ...


class NoJudgment:
    """No judgment at all: the agent keeps the mention rule of multi-human threads."""

    async def judge(self, agent: str, events: tuple[RoomEvent, ...], request: Judge) -> Respond | Silent:
        return Silent(SilenceReason.MULTI_HUMAN_NEEDS_MENTION)


class Judges(ReadsLiveConfig):
    """Asks the backends for any agent; `env` holds provider keys and TYPESAFE_* (with the `.env`)."""

    def __init__(
        self,
        config: RoomsConfig | LiveConfig,
        env: Mapping[str, str],
        slots: JudgmentSlots,
        metrics: RoomMetrics | None = None,
    ) -> None:
        self.read_config(config)
        self.env, self.slots = env, slots
        self.metrics = metrics
        self.typesafe = TypesafeClient(env)

    def reply_model_name(self, agent: str) -> str:
        alias = self.config.agents[agent].model or self.config.defaults.model
        return model_choice(self.config, alias, self.env).name or "default"

    async def ask(
        self, agent: str, backend: Backend, judgment: JudgmentConfig | None, request: JudgeRequest
    ) -> Outcome:
        """One judgment by `backend` (`judgment` configures it; None for the reply model)."""
        started = time.monotonic()
        outcome = await self._ask(agent, backend, judgment, request)
        outcome = replace(outcome, seconds=time.monotonic() - started, input_bytes=request.size)
        if self.metrics is not None:
            self.metrics.judged(agent, outcome)
        return outcome

    async def _ask(
        self, agent: str, backend: Backend, judgment: JudgmentConfig | None, request: JudgeRequest
    ) -> Outcome:
        timeout = judgment.timeout_seconds if judgment is not None else REPLY_MODEL_TIMEOUT
        if isinstance(judgment, TypesafeJudgment) and backend is Backend.TYPESAFE:
            return await self._typesafe(agent, judgment, request)
        if isinstance(judgment, LlmJudgment) and backend is Backend.LLM:
            return await self._model(agent, backend, judgment.model, request, timeout)
        alias = self.config.agents[agent].model or self.config.defaults.model
        brought = self._native_tools(alias)
        if brought:
            name = self.reply_model_name(agent)
            return Outcome(Backend.REPLY_MODEL, name, None, Failure.NATIVE_TOOLS, detail=brought)
        return await self._model(agent, Backend.REPLY_MODEL, alias, request, timeout)

    def _native_tools(self, alias: str | None) -> str | None:
        """What the alias's provider mode adds that no request can turn off (such a model cannot judge)."""
        name = model_choice(self.config, alias, self.env).name
        try:
            return native_tools(parse_model_name(name)) if name else None
        except ModelConfigError:
            return None  # asking the model reports it

    async def _model(
        self, agent: str, backend: Backend, alias: str | None, request: JudgeRequest, seconds: float
    ) -> Outcome:
        name = model_choice(self.config, alias, self.env).name or "default"
        try:
            model = alias_model(self.config, alias, self.env)
        except ModelConfigError as error:
            failure = (
                Failure.MISSING_CREDENTIALS
                if isinstance(error, MissingApiKeyError)
                else Failure.PROVIDER_ERROR
            )
            return Outcome(backend, name, None, failure, detail=str(error))
        with self.slots.taken(agent) as free:
            if not free:
                return Outcome(backend, name, None, Failure.LIMIT_FULL, detail="the judgment limit is full")
            try:
                async with asyncio.timeout(seconds):
                    answer = await ask_model(model, request.prompt(), JUDGE_OPTIONS)
            except TimeoutError:
                return Outcome(backend, name, None, Failure.TIMEOUT, detail=f"no answer within {seconds:g} s")
        usage = (answer.usage.input, answer.usage.output)
        if answer.failure is not None:
            return Outcome(
                backend, name, None, Failure.PROVIDER_ERROR, 0.0, *usage, detail=str(answer.failure)
            )
        parsed = parse_answer(answer.text)
        if isinstance(parsed, Failure):
            return Outcome(backend, name, None, parsed, 0.0, *usage)
        return Outcome(backend, name, parsed, None, 0.0, *usage)

    async def _typesafe(self, agent: str, judgment: TypesafeJudgment, request: JudgeRequest) -> Outcome:
        model, threshold = self.typesafe.model, judgment.threshold
        with self.slots.taken(agent) as free:
            if not free:
                failure, detail = Failure.LIMIT_FULL, "the judgment limit is full"
                return Outcome(Backend.TYPESAFE, model, None, failure, threshold=threshold, detail=detail)
            answer = await self.typesafe.ask(request, judgment.timeout_seconds)
        verdict = None if answer.probability is None else probability_verdict(answer.probability, threshold)
        return Outcome(
            Backend.TYPESAFE,
            answer.model,
            verdict,
            answer.failure,
            0.0,
            answer.tokens_in,
            answer.tokens_out,
            probability=answer.probability,
            threshold=threshold,
            detail=answer.detail,
        )


def backend_of(judgment: JudgmentConfig | None) -> Backend | None:
    if judgment is None:
        return None
    return Backend.LLM if isinstance(judgment, LlmJudgment) else Backend.TYPESAFE


class ParticipationJudges:
    """Adaptive participation's judgment: the agent's guidance and the thread's recent messages go to its
    backend unless a skip rule applies, then (on a skip or a failure) to its reply model."""

    def __init__(self, judges: Judges, transport: RoomTransport, facts: RoomFacts) -> None:
        self.judges, self.transport, self.facts = judges, transport, facts

    async def judge(self, agent: str, events: tuple[RoomEvent, ...], request: Judge) -> Respond | Silent:
        settings = self.judges.config.agents[agent].participation
        judgment = settings.judgment if settings is not None else None
        raws = await self._recent(events, request.thread_root)
        policy = self.facts.policy
        asked = participation_request(
            raws, self.transport.agent_user_id(agent), policy, settings.instructions if settings else None
        )
        latest = events[-1].event_id
        skip = participation_skip(asked)
        if skip is not None:
            log_participation_skip(agent, latest, skip)
        outcomes = []
        for backend in participation_steps(backend_of(judgment), skip):
            configured = None if backend is Backend.REPLY_MODEL else judgment
            outcome = await self.judges.ask(agent, backend, configured, asked)
            log_judgment("participation", agent, latest, outcome)
            outcomes.append(outcome)
            if outcome.verdict is not None:
                break
        verdict = settle(outcomes)
        if verdict is Verdict.YES:
            return Respond(request.conversation, ResponseReason.JUDGED)
        return Silent(SilenceReason.DECLINED if verdict is Verdict.NO else SilenceReason.JUDGMENT_FAILED)

    async def _recent(self, events: tuple[RoomEvent, ...], thread_root: str | None) -> list[Event]:
        """The thread up to the newest judged message; the judged messages alone if it cannot be read."""
        judged = [raw_of(event) for event in events]
        if thread_root is None:
            return judged
        try:
            thread = await self.transport.thread_events(events[-1].room_id, thread_root)
        except Exception:
            log.warning("Cannot read thread %s; judging its newest messages only", thread_root, exc_info=True)
            return judged
        ids = [raw.get("event_id") for raw in thread]
        if events[-1].event_id not in ids:
            return [*thread, *judged]
        return thread[: ids.index(events[-1].event_id) + 1]


def judgment_problems(config: RoomsConfig, env: Mapping[str, str]) -> list[str]:
    """Why a configured judgment cannot work yet (no key); the agent's own model decides until it does."""
    problems = []
    for name, agent in config.agents.items():
        for section, judgment in judgments(agent):
            where = f"Agent {name}'s {section} judgment"
            if isinstance(judgment, TypesafeJudgment) and not env.get(KEY_VARIABLE):
                problems.append(
                    f"{where} (typesafe): {KEY_VARIABLE} is not set in the environment or the .env beside "
                    "config.yaml; until it is, the agent's own model judges."
                )
            elif isinstance(judgment, LlmJudgment):
                try:
                    alias_model(config, judgment.model, env)
                except ModelConfigError as error:
                    problems.append(
                        f"{where} (model alias {judgment.model}): {error} Until then its own model judges."
                    )
    return problems
