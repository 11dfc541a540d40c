"""The room runtime: reads every event from a transport and hands each to the handler for its kind."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Collection, Mapping
from pathlib import Path

from miniroom.agent import CliAccess
from miniroom.config.config_yaml import RoomsConfig
from miniroom.config.dotenv import read_dotenv
from miniroom.config.settings_file import SettingsFileError
from miniroom.engine import Sleep
from miniroom.rooms.commands import is_command
from miniroom.rooms.events import parse_event
from miniroom.rooms.runtime.agents import AgentFactory
from miniroom.rooms.runtime.approvals import RoomApprovals
from miniroom.rooms.runtime.coalescing import MidTurn
from miniroom.rooms.runtime.commands import CommandHandler
from miniroom.rooms.runtime.context import HandlerContext
from miniroom.rooms.runtime.edits import EditHandler
from miniroom.rooms.runtime.facts import RoomFacts
from miniroom.rooms.runtime.judges import Judges, Judgment, ParticipationJudges, judgment_problems
from miniroom.rooms.runtime.ledger import Turn, TurnLedger
from miniroom.rooms.runtime.live_config import LiveConfig, ReadsLiveConfig
from miniroom.rooms.runtime.messages import MessageHandler
from miniroom.rooms.runtime.metrics import RoomMetrics
from miniroom.rooms.runtime.modes import AgentModes
from miniroom.rooms.runtime.participation import ParticipationQueue
from miniroom.rooms.runtime.replies import DEFAULT_EDIT_INTERVAL
from miniroom.rooms.runtime.reply_joins import ReplyJoins
from miniroom.rooms.runtime.router import Router
from miniroom.rooms.runtime.scheduler import TurnScheduler
from miniroom.rooms.runtime.slots import JudgmentSlots
from miniroom.rooms.runtime.state_store import AgentModeStore, ThreadModeStore
from miniroom.rooms.runtime.stops import StopHandler
from miniroom.rooms.runtime.turn_prompts import TurnPrompts
from miniroom.rooms.runtime.turn_queue import TurnQueue
from miniroom.rooms.runtime.turns import TurnOutcome, TurnRunner
from miniroom.rooms.stopping import is_stop
from miniroom.rooms.transport import Event, RoomTransport

log = logging.getLogger(__name__)
RECONNECT_DELAYS = (1.0, 30.0)  # seconds: the first wait after a transport failure, and the longest
TYPESAFE_PREFIX = "TYPESAFE_"
NOT_TEXT_IGNORED = "Ignoring a %s message from %s in %s (%s): agents read text, files and images only"


class RoomRuntime(ReadsLiveConfig):
    """Serves one transport: `start`, then `serve` until `stop`."""

    def __init__(
        self,
        config: RoomsConfig | LiveConfig,
        transport: RoomTransport,
        data_dir: Path,
        *,
        env: Mapping[str, str] | None = None,
        project_dir: Path | None = None,
        edit_interval: float = DEFAULT_EDIT_INTERVAL,
        judgment: Judgment | None = None,
        debounce_sleep: Sleep = asyncio.sleep,
        retry_sleep: Sleep = asyncio.sleep,
        cli: CliAccess | None = None,
        hosted: Collection[str] | None = None,
        metrics: RoomMetrics | None = None,
    ) -> None:
        """`config` is config.yaml, or the holder of it that the web pages read too; `project_dir` is the
        folder of config.yaml, whose `.miniroom/` holds every agent's settings and the `.env` with
        TYPESAFE_API_KEY (default: the data folder's parent, where `miniroom_data/` usually sits beside
        config.yaml); `judgment` decides for agents asked to judge a message (default: each agent's
        participation settings); `debounce_sleep` is the participation debounce's clock, `retry_sleep` the
        agents' pause before a retry; `cli` gives the agents' shells `miniroom-agent` (default: none, and
        no minimal mode); `hosted`: the agents and teams this instance answers as, when others share the
        homeserver (default: every one); `metrics` counts the work for `GET /metrics`."""
        self.read_config(config)
        self.transport, self.data_dir = transport, data_dir
        env = os.environ if env is None else env
        project_dir = project_dir or data_dir.parent
        tracking = data_dir / "tracking"
        self.ledger = TurnLedger(tracking)
        self.facts = RoomFacts(self.live, transport, ThreadModeStore(tracking), ReplyJoins(tracking), hosted)
        self.factory = factory = AgentFactory(self.live, data_dir, env, project_dir, retry_sleep)
        slots = JudgmentSlots()  # every judgment of the process, the router's included
        self.metrics = metrics = metrics or RoomMetrics()
        judges = self.judges = Judges(self.live, judge_env(env, project_dir), slots, metrics)
        modes = AgentModes(AgentModeStore(tracking), factory, cli)
        self.approvals = RoomApprovals(transport, tracking)
        runner = TurnRunner(
            transport,
            factory,
            self.ledger,
            mentions=self.facts.mentioned_agents,
            edit_interval=edit_interval,
            mid_turn=MidTurn(judges, transport, self.facts),
            modes=modes,
            metrics=metrics,
            approvals=self.approvals,
        )
        prompts = TurnPrompts(self.facts, self.ledger, factory.own_workspace)
        self.stops = StopHandler(transport, runner.running)
        self.turns = TurnScheduler(
            self.ledger, runner, self.facts.agent_name, self._after_turn, prompts.prompt
        )
        metrics.turns_waiting.read = self.queue.waiting
        context = HandlerContext(transport, self.facts, self.ledger, self.turns, modes)
        judgment = judgment or ParticipationJudges(judges, transport, self.facts)
        self.participation = ParticipationQueue(context, judgment, debounce_sleep)
        self.router = Router(self.live, env, slots)
        self.messages = MessageHandler(context, self.router, self.participation)
        self.edits = EditHandler(context)
        self.commands = CommandHandler(context)
        self.started = False

    @property
    def queue(self) -> TurnQueue:
        return self.turns.queue

    async def start(self) -> None:
        """Sign the agents in, join the rooms, and finish what a stop or a crash cut short."""
        await self._join()
        for problem in judgment_problems(self.config, self.judges.env):
            log.warning(problem)
        self.turns.resume(self.facts.hosted_responders)
        for raw in self.ledger.pending_events():  # what a stop cut short; anything answered is skipped
            await self._handle_safely(raw)
        self.started = True

    def not_ready(self) -> str | None:
        """Why the runtime cannot take messages now (None: it can), for a readiness probe."""
        if self.turns.stopping:
            return "miniroom is stopping"
        if not self.started:
            return "the agents are still joining their rooms"
        return None

    async def apply_config(self, config: RoomsConfig) -> str:
        """Serve `config` from now on, without a restart: added agents and teams join their rooms and removed
        ones leave them; turns under way finish as they began. Returns what changed, in words."""
        previous = self.facts.responders
        self.live.current = config
        self.facts.reread()
        current = self.facts.responders
        removed = {name: shown for name, shown in previous.items() if name not in current}
        await self._join(leaving=removed)
        added = [name for name in current if name not in previous]
        changes = [
            f"{label}: {', '.join(names)}"
            for label, names in (("added", added), ("removed", list(removed)))
            if names
        ]
        return "applied now" + (f" (agents {'; '.join(changes)})" if changes else "")

    async def _join(self, leaving: Mapping[str, str] | None = None) -> None:
        """The configured agents and teams join their rooms; those `leaving` (name -> display name, no longer
        configured) leave every room."""
        responders = {**(leaving or {}), **self.facts.hosted_responders}
        rooms = {key: room.alias for key, room in self.config.rooms.items()}
        await self.transport.start(responders, rooms, self.facts.room_agents)
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
        self.turns.stopping = True
        await self.participation.stop()
        await self.turns.stop()
        await self.transport.stop()

    async def idle(self) -> None:
        """Wait until every judgment and every queued turn (hand-offs included) has finished."""
        while not (self.participation.empty() and self.turns.queue.empty()):
            await self.participation.drain()
            await self.turns.drain()

    async def handle(self, raw: Event) -> None:
        """Route one event: edits, commands and messages each to their handler; anything else is ignored."""
        event = parse_event(raw)
        if not event.event_id or not event.room_id or not event.sender:
            log.warning("Ignoring a malformed event: %.200r", raw)
            return
        if self.facts.is_agent(event.sender):
            return  # our own echoes: hand-offs are taken from a reply's final text instead
        if is_stop(event):
            await self.stops.handle(event)
            return
        if not event.is_edit and not event.is_message:
            return
        if event.is_message and not event.is_readable:
            log.warning(NOT_TEXT_IGNORED, event.msgtype, event.sender, event.room_id, event.event_id)
            return
        if event.is_message and not is_command(event.body) and await self.approvals.take(event):
            return  # an answer to a waiting card, not a message for the agents
        self.ledger.receive(event.event_id, raw)  # until its turns end: a stop meanwhile must not lose it
        try:
            if event.is_edit:
                await self.edits.handle(event)
            elif event.is_text and is_command(event.body):
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


def judge_env(env: Mapping[str, str], project_dir: Path) -> Mapping[str, str]:
    """What judgments read credentials from: the environment, and TYPESAFE_* from the `.env` beside
    config.yaml (the environment wins)."""
    try:
        dotenv = read_dotenv(project_dir)
    except SettingsFileError as error:
        log.error("%s; TypeSafe judgments read the environment only", error)
        dotenv = {}
    typesafe = {name: value for name, value in dotenv.items() if name.startswith(TYPESAFE_PREFIX)}
    return {**typesafe, **env}


def _event_id(raw: object) -> object:
    return raw.get("event_id") if isinstance(raw, dict) else None
