"""The room runtime: reads every event from a transport and hands each to the handler for its kind."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from miniroom.config.config_yaml import AgentEntry, RoomsConfig
from miniroom.rooms.commands import is_command
from miniroom.rooms.events import parse_event
from miniroom.rooms.runtime.agents import AgentFactory
from miniroom.rooms.runtime.commands import CommandHandler
from miniroom.rooms.runtime.context import HandlerContext
from miniroom.rooms.runtime.edits import EditHandler
from miniroom.rooms.runtime.facts import RoomFacts
from miniroom.rooms.runtime.judges import Judgment, NoJudgment
from miniroom.rooms.runtime.ledger import Turn, TurnLedger
from miniroom.rooms.runtime.messages import MessageHandler
from miniroom.rooms.runtime.replies import DEFAULT_EDIT_INTERVAL
from miniroom.rooms.runtime.router import Router
from miniroom.rooms.runtime.scheduler import TurnScheduler
from miniroom.rooms.runtime.state_store import ThreadModeStore
from miniroom.rooms.runtime.turn_queue import TurnQueue
from miniroom.rooms.runtime.turns import TurnOutcome, TurnRunner
from miniroom.rooms.transport import Event, RoomTransport

log = logging.getLogger(__name__)
RECONNECT_DELAYS = (1.0, 30.0)  # seconds: the first wait after a transport failure, and the longest
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
        judgment: Judgment | None = None,
    ) -> None:
        """`project_dir` is the folder of config.yaml, whose `.miniroom/` holds every agent's settings
        (default: the data folder's parent, where `miniroom_data/` usually sits beside config.yaml);
        `judgment` decides for agents asked to judge a message (default: they keep the mention rule)."""
        self.config, self.transport, self.data_dir = config, transport, data_dir
        env = os.environ if env is None else env
        tracking = data_dir / "tracking"
        self.ledger = TurnLedger(tracking)
        self.facts = RoomFacts(config, transport, ThreadModeStore(tracking))
        self.factory = AgentFactory(config, data_dir, env, project_dir or data_dir.parent)
        runner = TurnRunner(
            transport,
            self.factory,
            self.ledger,
            mentions=self.facts.mentioned_agents,
            edit_interval=edit_interval,
        )
        self.turns = TurnScheduler(self.ledger, runner, self.facts.agent_name, self._after_turn)
        context = HandlerContext(transport, self.facts, self.ledger, self.turns)
        self.router = Router(config, env)
        self.messages = MessageHandler(context, self.router, judgment or NoJudgment())
        self.edits = EditHandler(context)
        self.commands = CommandHandler(context)

    @property
    def queue(self) -> TurnQueue:
        return self.turns.queue

    async def start(self) -> None:
        """Sign the agents in, join the rooms, and finish what a stop or a crash cut short."""
        await self._join()
        self.turns.resume(self.config.agents)
        for raw in self.ledger.pending_events():  # what a stop cut short; anything answered is skipped
            await self._handle_safely(raw)

    async def apply_config(self, config: RoomsConfig) -> str:
        """Serve `config` from now on, without a restart: added agents join their rooms and removed ones
        leave them; turns under way finish as they began. Returns what changed, in words."""
        previous = self.config
        self.config = self.factory.config = self.router.config = config
        self.facts.use(config)
        removed = {name: previous.agents[name] for name in previous.agents if name not in config.agents}
        await self._join(leaving=removed)
        added = [name for name in config.agents if name not in previous.agents]
        changes = [
            f"{label}: {', '.join(names)}"
            for label, names in (("added", added), ("removed", removed))
            if names
        ]
        return "applied now" + (f" (agents {'; '.join(changes)})" if changes else "")

    async def _join(self, leaving: Mapping[str, AgentEntry] | None = None) -> None:
        """The configured agents join their rooms; those `leaving` (no longer configured) leave every room."""
        entries = {**(leaving or {}), **self.config.agents}
        agents = {name: agent.display_name or name for name, agent in entries.items()}
        rooms = {key: room.alias for key, room in self.config.rooms.items()}
        await self.transport.start(agents, rooms, self.facts.room_agents)
        self.facts.learn_accounts()

    async def serve(self) -> None:
        """Handle every event the transport delivers, in order, until `stop`; nothing else ends it."""
        delay = RECONNECT_DELAYS[0]
        while not self.turns.stopping:
            try:
                async for raw in self.transport.events():
                    delay = RECONNECT_DELAYS[0]
                    await self._handle_safely(raw)
                return
            except Exception:
                log.exception("Reading events failed; reading again in %g s", delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECONNECT_DELAYS[1])

    async def stop(self) -> None:
        await self.turns.stop()
        await self.transport.stop()

    async def idle(self) -> None:
        """Wait until every queued turn (hand-offs included) has finished."""
        await self.turns.drain()

    async def handle(self, raw: Event) -> None:
        """Route one event: edits, commands and messages each to their handler; anything else is ignored."""
        event = parse_event(raw)
        if not event.event_id or not event.room_id or not event.sender:
            log.warning("Ignoring a malformed event: %.200r", raw)
            return
        if self.facts.is_agent(event.sender):
            return  # our own echoes: hand-offs are taken from a reply's final text instead
        if not event.is_edit and not event.is_message:
            return
        if event.is_message and not event.is_text:
            log.warning(NOT_TEXT_IGNORED, event.msgtype, event.sender, event.room_id, event.event_id)
            return
        self.ledger.receive(event.event_id, raw)  # until its turns end: a stop meanwhile must not lose it
        try:
            if event.is_edit:
                await self.edits.handle(event)
            elif is_command(event.body):
                await self.commands.handle(event)
            else:
                await self.messages.handle(event)
        finally:
            if not self.turns.stopping:
                self.ledger.release(event.event_id)

    async def _handle_safely(self, raw: Event) -> None:
        try:
            await self.handle(raw)
        except Exception:
            log.exception("Handling event %s failed; continuing", _event_id(raw))

    async def _after_turn(self, turn: Turn, outcome: TurnOutcome) -> None:
        await self.messages.after_turn(turn, outcome)


def _event_id(raw: object) -> object:
    return raw.get("event_id") if isinstance(raw, dict) else None
