"""Judgments: an agent asked to judge (`Judge`, adaptive participation) learns here whether it answers."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Protocol

from miniroom.rooms.decide import Judge, Respond, RoomDecision, SilenceReason, Silent
from miniroom.rooms.events import RoomEvent


class Judgment(Protocol):
    """Decides for one agent whether it answers `event`; a failed judgment keeps the agent quiet."""

    async def judge(self, agent: str, event: RoomEvent, request: Judge) -> Respond | Silent: ...


class NoJudgment:
    """No judgment backend: the agent keeps the mention rule of multi-human threads, as it would without
    participation."""

    async def judge(self, agent: str, event: RoomEvent, request: Judge) -> Respond | Silent:
        return Silent(SilenceReason.MULTI_HUMAN_NEEDS_MENTION)


async def judged(decision: RoomDecision, judgment: Judgment) -> RoomDecision:
    """`decision` with every `Judge` replaced by its judgment; the agents' judgments run concurrently."""
    asked = {name: d for name, d in decision.decisions.items() if isinstance(d, Judge)}
    if not asked:
        return decision
    answers = await asyncio.gather(
        *(judgment.judge(name, decision.event, request) for name, request in asked.items())
    )
    return replace(decision, decisions={**decision.decisions, **dict(zip(asked, answers, strict=True))})
