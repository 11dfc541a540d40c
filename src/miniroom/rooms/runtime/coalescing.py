"""Mid-turn coalescing at run time: between an agent's completed tool batches, the messages that arrived
meanwhile either get it the wrap-up notice, or (with `mid_turn` set, when its judge finds they can wait)
let the task go on. Queued messages are answered after the turn either way, as one coalesced turn."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from miniroom.engine import Agent, BetweenBatches
from miniroom.llm import UserMessage
from miniroom.rooms.content import reaction_content
from miniroom.rooms.events import REACTION_TYPE
from miniroom.rooms.judgment import Verdict, mid_turn_steps
from miniroom.rooms.mid_turn import WRAP_UP_NOTICE, MidTurnInput, Queued, mid_turn_request
from miniroom.rooms.runtime.facts import RoomFacts
from miniroom.rooms.runtime.judges import Judges, backend_of
from miniroom.rooms.runtime.ledger import transaction_id
from miniroom.rooms.runtime.logs import log_mid_turn_evaluated, log_mid_turn_skipped, log_wrap_up
from miniroom.rooms.runtime.running import RunningTurn
from miniroom.rooms.transport import RoomTransport

log = logging.getLogger(__name__)
DEFER_PART = "defer"


class MidTurn:
    """Makes each engine agent's check between tool batches (`hook`)."""

    def __init__(self, judges: Judges, transport: RoomTransport, facts: RoomFacts) -> None:
        self.judges, self.transport, self.facts = judges, transport, facts

    def hook(self, running: RunningTurn, agent: Agent) -> BetweenBatches:
        """One engine agent's check: the notice enters its turn (through its inbox) once, when the turn
        decided to wrap up."""
        told = False

        async def between_batches() -> None:
            nonlocal told
            async with running.checking:  # a team's members share one decision
                if not running.wrap_up and running.covered < len(running.queued):
                    running.wrap_up = await self._wrap_up(running)
            if running.wrap_up and not told:
                told = True
                agent.inbox.put(UserMessage.of_text(WRAP_UP_NOTICE))

        return between_batches

    async def _wrap_up(self, running: RunningTurn) -> bool:
        """Whether the messages queued since the last check need the notice; covers them either way."""
        turn = running.turn
        fresh = running.queued[running.covered :]
        running.covered = len(running.queued)  # a decision covers only the messages it saw
        event_ids = [str(item.raw.get("event_id")) for item in fresh]
        agent = self.facts.config.agents.get(turn.agent)
        settings = agent.mid_turn if agent is not None else None  # teams never inherit their members'
        if settings is None:
            log_wrap_up(turn, event_ids)
            return True
        data = await self._input(running, fresh)
        skip, request = mid_turn_request(
            data, self.transport.agent_user_id(turn.agent), self.facts.policy, settings.instructions
        )
        if skip is not None:
            log_mid_turn_skipped(turn, event_ids, skip)
            return True
        assert request is not None
        (backend,) = mid_turn_steps(backend_of(settings.judgment))
        outcome = await self.judges.ask(turn.agent, backend, settings.judgment, request)
        notice = outcome.verdict is not Verdict.YES  # unsure, a timeout or a failure wraps up
        log_mid_turn_evaluated(turn, event_ids, outcome, notice)
        if not notice and settings.defer_reaction:
            for item in fresh:
                await self._react(turn.agent, turn.conversation.room_id, item.raw, settings.defer_reaction)
        return notice

    async def _input(self, running: RunningTurn, fresh: list[Queued]) -> MidTurnInput:
        """The active request's messages and the thread before them (None when not readable whole)."""
        turn = running.turn
        room, root = turn.conversation.room_id, turn.conversation.thread_root
        if root is None:
            return MidTurnInput((), None, fresh, room_mode=True)
        try:
            thread = await self.transport.thread_events(room, root)
        except Exception:
            log.warning("Cannot read thread %s for a mid-turn judgment", root, exc_info=True)
            return MidTurnInput((), None, fresh)
        at = [index for index, raw in enumerate(thread) if raw.get("event_id") in turn.event_ids]
        active = [thread[index] for index in at]
        if len(active) < len(turn.event_ids):
            return MidTurnInput(active, None, fresh)
        return MidTurnInput(active, thread[: at[0]], fresh)

    async def _react(self, agent: str, room_id: str, raw: Mapping[str, Any], key: str) -> None:
        """The `defer_reaction`, once per message that can wait."""
        event_id = str(raw.get("event_id"))
        try:
            await self.transport.send(
                self.transport.agent_user_id(agent),
                room_id,
                REACTION_TYPE,
                reaction_content(event_id, key),
                txn_id=transaction_id(event_id, agent, DEFER_PART),
            )
        except Exception:
            log.warning("Cannot react to %s for %s", event_id, agent, exc_info=True)
