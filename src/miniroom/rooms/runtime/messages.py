"""Messages: conversation → decision → judgments (apart) → routing → one turn per responder → hand-offs."""

from __future__ import annotations

import logging

from miniroom.rooms.content import MESSAGE_EVENT, conversation_relation, message_content
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.decide import Judge, Respond, RoomDecision, decide
from miniroom.rooms.events import RoomEvent, parse_event
from miniroom.rooms.judge_context import raw_of
from miniroom.rooms.runtime.context import HandlerContext
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.logs import log_decisions
from miniroom.rooms.runtime.participation import ParticipationQueue
from miniroom.rooms.runtime.router import Router
from miniroom.rooms.runtime.turns import TurnOutcome

log = logging.getLogger(__name__)
MAX_HANDOFFS = 5


class MessageHandler:
    """Answers a person's message, and an agent's reply that hands off to another agent."""

    def __init__(self, context: HandlerContext, router: Router, participation: ParticipationQueue) -> None:
        self.context, self.router, self.participation = context, router, participation

    async def handle(self, event: RoomEvent) -> None:
        conversation = await self.context.facts.conversation(event)
        self.context.facts.posted(event, conversation)
        decision = await self._decide(event, conversation)
        prompt = f"{await self.context.facts.sender_name(event.room_id, event.sender)}: {event.body}"
        for name, outcome in decision.decisions.items():
            if isinstance(outcome, Judge) and self.context.facts.hosts(name):  # judged apart, not waited for
                self.participation.submit(name, event, outcome, prompt)
        decision = await self._routed(decision)
        log_decisions(decision)
        self._submit_responders(decision, prompt, handoffs=0)

    async def after_turn(self, turn: Turn, outcome: TurnOutcome) -> None:
        """A reply ending with another agent's mention reaches that agent as a new message, once."""
        if outcome.failed or outcome.reply_id is None or turn.edit_of is not None:
            return
        if turn.handoffs >= MAX_HANDOFFS:
            log.warning("Not handing off from %s: %d hand-offs in a row", turn.agent, turn.handoffs)
            return
        await self._hand_off(turn, outcome.reply_id, outcome.text)

    async def _hand_off(self, turn: Turn, reply_id: str, text: str) -> None:
        conversation, facts = turn.conversation, self.context.facts
        content = message_content(
            text, relates_to=conversation_relation(conversation.thread_root, turn.event_id)
        )
        raw = {"event_id": reply_id, "room_id": conversation.room_id, "type": MESSAGE_EVENT}
        reply = parse_event(
            {**raw, "sender": self.context.transport.agent_user_id(turn.agent), "content": content}
        )
        decision = await self._decide(reply, conversation)
        log_decisions(decision)
        prompt = f"{facts.agent_name(turn.agent)}: {text}"
        self._submit_responders(decision, prompt, handoffs=turn.handoffs + 1)

    async def _decide(self, event: RoomEvent, conversation: Conversation) -> RoomDecision:
        facts = self.context.facts
        room = await facts.room_state(event.room_id, event)
        answering = self.context.turns.queue.answering(conversation.room_id, conversation.thread_root)
        thread = await facts.thread(conversation, answering)
        return decide(event, facts.policy, room, conversation=conversation, thread=thread)

    async def _routed(self, decision: RoomDecision) -> RoomDecision:
        """The router picks one of several candidates; a message delivered again after a restart keeps the
        candidate that answered it (or is answering it) before."""
        routing = decision.routing
        if routing is None:
            return decision
        event_id = decision.event.event_id
        taken = [name for name in routing.candidates if self.context.ledger.taken(event_id, name)]
        if taken:
            return decision.route_to(taken[0])
        if not all(self.context.facts.hosts(name) for name in routing.candidates):
            # Hosted by several instances, which must agree without asking each other: the first answers.
            return decision.route_to(routing.candidates[0])
        return decision.route_to(await self.router.choose(routing.candidates, decision.event.body or ""))

    def _submit_responders(self, decision: RoomDecision, prompt: str, handoffs: int) -> None:
        event = decision.event
        # A person's message reaches an agent still answering there; an agent's hand-off only waits.
        arrived = () if self.context.facts.is_agent(event.sender) else (raw_of(event),)
        for name, outcome in decision.decisions.items():
            if not isinstance(outcome, Respond) or not self.context.facts.hosts(name):
                continue  # another instance answers as an agent it hosts
            if not self.context.ledger.answered(event.event_id, name):
                turn = Turn(
                    name,
                    outcome.conversation,
                    event.event_id,
                    prompt,
                    handoffs=handoffs,
                    requester=event.sender,
                )
                self.context.turns.submit(turn, arrived)
