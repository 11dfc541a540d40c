"""The room runtime: reads every event from a transport and makes the configured agents answer by policy."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from miniroom.rooms.commands import is_command, is_room_admin, parse_command, run_command
from miniroom.rooms.config import RoomsConfig
from miniroom.rooms.conversation import Conversation, resolve_conversation
from miniroom.rooms.decide import Respond, RoomDecision, decide, regenerate_on_edit, reply_conversation
from miniroom.rooms.events import RoomEvent, parse_event
from miniroom.rooms.mentions import plain_mentions
from miniroom.rooms.policy import RoomPolicy, RoomState, room_agents, room_policy, room_thread_modes
from miniroom.rooms.runtime.agents import AgentFactory
from miniroom.rooms.runtime.content import MESSAGE_EVENT, message_content
from miniroom.rooms.runtime.ledger import TurnLedger, transaction_id
from miniroom.rooms.runtime.replies import DEFAULT_EDIT_INTERVAL
from miniroom.rooms.runtime.room_view import member_name, related_events, thread_state
from miniroom.rooms.runtime.router import Router
from miniroom.rooms.runtime.state_store import ThreadModeStore
from miniroom.rooms.runtime.turn_queue import TurnKey, TurnQueue
from miniroom.rooms.runtime.turns import Turn, TurnRunner
from miniroom.rooms.thread_mode import RoomRef
from miniroom.rooms.transport import Event, RoomTransport

log = logging.getLogger(__name__)
MAX_HANDOFFS = 5
RECONNECT_DELAYS = (1.0, 30.0)  # seconds: the first wait after a transport failure, and the longest
COMMAND_REPLIER_NOT_JOINED = "No agent has joined %s, so the command %s goes unanswered"
NOT_TEXT_IGNORED = "Ignoring a %s message from %s in %s (%s): agents read typed text only"


class RoomRuntime:
    """Serves one transport: `start`, then `serve` until `stop`."""

    def __init__(
        self,
        config: RoomsConfig,
        transport: RoomTransport,
        data_dir: Path,
        *,
        env: Mapping[str, str] | None = None,
        project_dir: Path | None = None,
        edit_interval: float = DEFAULT_EDIT_INTERVAL,
    ) -> None:
        """`project_dir` is the folder of config.yaml, whose `.miniroom/` holds every agent's settings
        (default: the data folder's parent, where `miniroom_data/` usually sits beside config.yaml)."""
        self.config, self.transport, self.data_dir = config, transport, data_dir
        env = os.environ if env is None else env
        tracking = data_dir / "tracking"
        self.thread_modes = ThreadModeStore(tracking)
        self.ledger = TurnLedger(tracking)
        factory = AgentFactory(config, data_dir, env, project_dir or data_dir.parent)
        self.turns = TurnRunner(
            transport, factory, self.ledger, mentions=self._agents_mentioned, edit_interval=edit_interval
        )
        self.router = Router(config, env)
        self.queue = TurnQueue()
        self.policy = RoomPolicy(agents=())
        self._room_keys: dict[str, str] = {}
        self._room_agents = room_agents(config)
        self._newest_edits: dict[str, RoomEvent] = {}
        self._stopping = False

    async def start(self) -> None:
        """Sign the agents in, join the rooms, and build the policy from their user ids."""
        agents = {name: agent.display_name or name for name, agent in self.config.agents.items()}
        rooms = {key: room.alias for key, room in self.config.rooms.items()}
        await self.transport.start(agents, rooms, self._room_agents)
        user_ids = {name: self.transport.agent_user_id(name) for name in self.config.agents}
        self.policy = room_policy(self.config, user_ids)
        for key in self.config.rooms:
            room_id = self.transport.room_id(key)
            if room_id is not None:
                self._room_keys[room_id] = key
        self._resume_turns()
        for raw in self.ledger.pending_events():  # what a stop cut short; anything answered is skipped
            await self._handle_safely(raw)

    def _resume_turns(self) -> None:
        """Run again the turns a stop or a crash cut short: each finishes the reply it had posted."""
        for record in self.ledger.unfinished():
            if record.turn.agent in self.config.agents:
                self._submit(record.turn)
                continue
            log.warning(
                "Not finishing the reply of %s to %s: no agent of that name is configured any more",
                record.turn.agent,
                record.turn.event_id,
            )
            self.ledger.complete(record.turn, None)

    async def serve(self) -> None:
        """Handle every event the transport delivers, in order, until `stop`; nothing else ends it."""
        delay = RECONNECT_DELAYS[0]
        while not self._stopping:
            try:
                async for raw in self.transport.events():
                    delay = RECONNECT_DELAYS[0]
                    await self._handle_safely(raw)
                return
            except Exception:
                log.exception("Reading events failed; reading again in %g s", delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECONNECT_DELAYS[1])

    async def _handle_safely(self, raw: Event) -> None:
        try:
            await self.handle(raw)
        except Exception:
            log.exception("Handling event %s failed; continuing", _event_id(raw))

    async def stop(self) -> None:
        self._stopping = True
        await self.queue.cancel()
        await self.turns.settle()
        await self.transport.stop()

    async def idle(self) -> None:
        """Wait until every queued turn (hand-offs included) has finished."""
        await self.queue.drain()

    async def handle(self, raw: Event) -> None:
        event = parse_event(raw)
        if not event.event_id or not event.room_id or not event.sender:
            log.warning("Ignoring a malformed event: %.200r", raw)
            return
        if event.sender in self.policy.agents_by_user_id:
            return  # our own echoes: hand-offs are taken from a reply's final text instead
        if not event.is_edit and not event.is_message:
            return
        if event.is_message and not event.is_text:
            log.warning(NOT_TEXT_IGNORED, event.msgtype, event.sender, event.room_id, event.event_id)
            return
        self.ledger.receive(event.event_id, raw)  # until its turns end: a stop meanwhile must not lose it
        try:
            if event.is_edit:
                await self._on_edit(event)
            elif is_command(event.body):
                await self._on_command(event)
            else:
                await self._on_message(event)
        finally:
            if not self._stopping:
                self.ledger.release(event.event_id)

    # Messages

    async def _on_message(self, event: RoomEvent) -> None:
        conversation = await self._conversation(event)
        decision = await self._decide(event, conversation)
        routing = decision.routing
        # A message delivered again after a restart was routed already: its answer is on record.
        if routing is not None and not any(self.ledger.taken(event.event_id, n) for n in routing.candidates):
            chosen = await self.router.choose(routing.candidates, event.body or "")
            decision = decision.route_to(chosen)
        prompt = f"{await self.sender_name(event.room_id, event.sender)}: {event.body}"
        self._submit_responders(decision, event.event_id, prompt, handoffs=0)

    async def _decide(self, event: RoomEvent, conversation: Conversation) -> RoomDecision:
        room = await self._room_state(event.room_id)
        answering = self.queue.answering(conversation.room_id, conversation.thread_root)
        user_ids = [self.transport.agent_user_id(name) for name in answering]
        thread = await thread_state(self.transport, conversation, user_ids)
        return decide(event, self.policy, room, conversation=conversation, thread=thread)

    def _submit_responders(self, decision: RoomDecision, event_id: str, prompt: str, handoffs: int) -> None:
        for name, outcome in decision.decisions.items():
            if isinstance(outcome, Respond) and not self.ledger.answered(event_id, name):
                turn = Turn(name, outcome.conversation, event_id, prompt, handoffs=handoffs)
                self._submit(turn)

    def _submit(self, turn: Turn) -> None:
        if not self.ledger.claim(turn):
            return  # delivered again (e.g. replayed at start) while its turn is still queued or running
        if self._stopping:
            return  # the event stays pending: its turn runs after the next start
        key = TurnKey(turn.agent, turn.conversation.room_id, turn.conversation.thread_root)
        self.queue.submit(key, lambda: self._run_turn(turn))

    async def _run_turn(self, turn: Turn) -> None:
        cancelled = False
        try:
            await self._answer(turn)
        except asyncio.CancelledError:
            cancelled = True  # stopping: the event stays pending, to be handled again at the next start
            raise
        finally:
            if not cancelled:
                self.ledger.unclaim(turn)

    async def _answer(self, turn: Turn) -> None:
        outcome = await self.turns.run(turn, self.agent_name(turn.agent))
        if outcome.failed or outcome.reply_id is None or turn.edit_of is not None:
            return
        if turn.handoffs >= MAX_HANDOFFS:
            log.warning("Not handing off from %s: %d hand-offs in a row", turn.agent, turn.handoffs)
            return
        await self._hand_off(turn, outcome.reply_id, outcome.text)

    async def _hand_off(self, turn: Turn, reply_id: str, text: str) -> None:
        """A reply ending with another agent's mention reaches that agent as a new message, once."""
        conversation = turn.conversation
        content = message_content(text, thread_root=conversation.thread_root, in_reply_to=turn.event_id)
        raw = {"event_id": reply_id, "room_id": conversation.room_id, "type": MESSAGE_EVENT}
        reply = parse_event({**raw, "sender": self.transport.agent_user_id(turn.agent), "content": content})
        decision = await self._decide(reply, conversation)
        prompt = f"{self.agent_name(turn.agent)}: {text}"
        self._submit_responders(decision, reply_id, prompt, handoffs=turn.handoffs + 1)

    # Edits

    async def _on_edit(self, edit: RoomEvent) -> None:
        """A person edited a message an agent answered: that agent answers again, editing its reply."""
        target = edit.relation.replaces or ""
        related = await related_events(self.transport, edit)
        regenerations = regenerate_on_edit(
            edit,
            policy=self.policy,
            get_event=related.get,
            agent_replies=self.ledger.replies,
            newest_edit=self._newest_edits.get(target),
        )
        if not regenerations:
            return
        self._newest_edits[target] = edit
        original = parse_event(related[target])
        conversation = await self._conversation(original)
        room = await self._room_state(edit.room_id)
        who = await self.sender_name(edit.room_id, edit.sender)
        for regeneration in regenerations:
            if self.ledger.answered(edit.event_id, regeneration.agent):
                continue
            prompt = f"{who} edited the message you answered; answer it as it now reads:\n{regeneration.body}"
            where = reply_conversation(original, conversation, room.thread_mode(regeneration.agent))
            turn = Turn(regeneration.agent, where, edit.event_id, prompt, edit_of=regeneration.reply_event_id)
            self._submit(turn)

    # Commands

    async def _on_command(self, event: RoomEvent) -> None:
        command = parse_command(event.body)
        if command is None or self.ledger.answered(event.event_id):
            return
        replier = await self._command_replier(event.room_id)
        if replier is None:
            log.warning(COMMAND_REPLIER_NOT_JOINED, event.room_id, event.event_id)
            return
        power_levels = await self.transport.power_levels(event.room_id)
        result = run_command(
            command,
            room_id=event.room_id,
            sender_is_admin=is_room_admin(power_levels, event.sender),
            overrides=self.thread_modes,
        )
        conversation = await self._conversation(event)
        content = message_content(
            result.reply, thread_root=conversation.thread_root, in_reply_to=event.event_id
        )
        content["msgtype"] = "m.notice"
        sender = self.transport.agent_user_id(replier)
        txn_id = transaction_id(event.event_id, replier, "command")
        reply_id = await self.transport.send(sender, event.room_id, MESSAGE_EVENT, content, txn_id=txn_id)
        self.ledger.record_reply(event.event_id, replier, reply_id)

    async def _command_replier(self, room_id: str) -> str | None:
        """The first configured agent that belongs in the room answers its commands."""
        room = await self._room_state(room_id)
        return next((agent.name for agent in self.policy.agents if room.hosts(agent)), None)

    # Room facts

    async def _conversation(self, event: RoomEvent) -> Conversation:
        related = await related_events(self.transport, event)
        return resolve_conversation(event, related.get)

    async def _room_state(self, room_id: str) -> RoomState:
        key = self._room_keys.get(room_id)
        alias = self.config.rooms[key].alias if key is not None else None
        modes, _router_mode = room_thread_modes(
            self.config, RoomRef(room_id, key, alias), self.thread_modes.get(room_id)
        )
        joined = frozenset(await self.transport.joined_members(room_id))
        configured = frozenset(self._room_agents[key]) if key is not None else None
        return RoomState(room_id, joined, modes, configured_agents=configured)

    def _agents_mentioned(self, text: str) -> tuple[str, ...]:
        return plain_mentions(text, self.policy.agent_mentions)

    def agent_name(self, agent: str) -> str:
        return self.config.agents[agent].display_name or agent

    async def sender_name(self, room_id: str, user_id: str) -> str:
        agent = self.policy.agents_by_user_id.get(user_id)
        if agent is not None:
            return self.agent_name(agent.name)
        return await member_name(self.transport, room_id, user_id)


def _event_id(raw: object) -> object:
    return raw.get("event_id") if isinstance(raw, dict) else None
