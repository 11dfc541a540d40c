"""The room facts every handler reads: an event's conversation, a room's state, threads and sender names."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace

from miniroom.config.config_yaml import RoomsConfig
from miniroom.rooms.conversation import Conversation, chain_end, resolve_conversation
from miniroom.rooms.events import RoomEvent
from miniroom.rooms.mentions import plain_mentions, reads_plain_mentions
from miniroom.rooms.policy import (
    RoomPolicy,
    RoomState,
    ThreadState,
    room_agents,
    room_policy,
    room_thread_modes,
)
from miniroom.rooms.runtime.live_config import LiveConfig, ReadsLiveConfig
from miniroom.rooms.runtime.reply_joins import ReplyJoins
from miniroom.rooms.runtime.room_view import (
    has_thread,
    related_events,
    shown_names,
    thread_state,
)
from miniroom.rooms.runtime.state_store import ThreadModeStore
from miniroom.rooms.thread_mode import RoomRef
from miniroom.rooms.transport import Event, RoomTransport

SERVICE_ACCOUNT = "router"  # the account that reads every room for the runtime; never a human


class RoomFacts(ReadsLiveConfig):
    """Reads what the policy decides from, through the transport; `learn_accounts` once it has started."""

    def __init__(
        self,
        config: RoomsConfig | LiveConfig,
        transport: RoomTransport,
        thread_modes: ThreadModeStore,
        reply_joins: ReplyJoins,
        hosted: Collection[str] | None = None,
    ) -> None:
        """`hosted`: the agents and teams this instance answers as (None: all); the policy knows them all, so
        that instances sharing a homeserver decide alike."""
        self.transport, self.thread_modes, self.reply_joins = transport, thread_modes, reply_joins
        self.hosted = frozenset(hosted) if hosted is not None else None
        self.policy = RoomPolicy(agents=())
        self._room_keys: dict[str, str] = {}  # room id -> room key
        self._server_name: str | None = None  # the rooms' homeserver, for their full aliases
        self._former_agents: set[str] = set()  # user ids of agents config.yaml no longer has
        self.read_config(config)
        self.reread()

    def reread(self) -> None:
        """Read the config in force anew; `learn_accounts` again once the transport has its agents and
        rooms."""
        self._former_agents.update(self.policy.agents_by_user_id)  # their last replies are no one's prompt
        self.room_agents = room_agents(self.config)  # room key -> the agents config.yaml puts there

    @property
    def responders(self) -> dict[str, str]:
        """Every account that answers, agents then teams: name -> display name."""
        agents = {name: agent.display_name or name for name, agent in self.config.agents.items()}
        return agents | {name: team.display_name or name for name, team in self.config.teams.items()}

    @property
    def hosted_responders(self) -> dict[str, str]:
        """The responders this instance signs in and answers as."""
        return {name: shown for name, shown in self.responders.items() if self.hosts(name)}

    def hosts(self, name: str) -> bool:
        return self.hosted is None or name in self.hosted

    def learn_accounts(self) -> None:
        """Build the policy from the agents' and teams' user ids, the service account's (the router on
        Matrix), and map room ids to keys (the transport knows them all)."""
        user_ids = {name: self.transport.agent_user_id(name) for name in self.responders}
        service_id = self.transport.agent_user_id(SERVICE_ACCOUNT)
        self._server_name = service_id.partition(":")[2] or None
        service = frozenset({service_id})
        self.policy = room_policy(self.config, user_ids, service)
        self._room_keys = {}
        for key in self.config.rooms:
            room_id = self.transport.room_id(key)
            if room_id is not None:
                self._room_keys[room_id] = key

    def is_agent(self, user_id: str) -> bool:
        return user_id in self.policy.agents_by_user_id or user_id in self._former_agents

    async def related(self, event: RoomEvent) -> dict[str, Event]:
        """The earlier events `event` points at (its target, its reply chain), by event id."""
        return await related_events(self.transport, event)

    async def conversation(self, event: RoomEvent) -> Conversation:
        """The event's thread or room level; a plain reply to a thread's root joins that thread."""
        related = await self.related(event)
        end = chain_end(event, related.get)
        rooted = end is not None and await has_thread(self.transport, event.room_id, related[end])
        return resolve_conversation(event, related.get, thread_roots=(end,) if rooted and end else ())

    async def room_state(self, room_id: str, event: RoomEvent | None = None) -> RoomState:
        """Members, thread modes (with the `!thread_mode` override) and the agents config.yaml puts here;
        with `event` mentioning people in plain `@name` text, the members' names to read them by."""
        key = self._room_keys.get(room_id)
        alias = self.config.rooms[key].alias if key is not None else None
        modes, _router_mode = room_thread_modes(
            self.config, RoomRef(room_id, key, alias, self._server_name), self.thread_modes.get(room_id)
        )
        configured = frozenset(self.room_agents[key]) if key is not None else None
        if event is None or not reads_plain_mentions(event):
            joined = frozenset(await self.transport.joined_members(room_id))
            return RoomState(room_id, joined, modes, None, configured)
        names = await self.transport.member_names(room_id)  # the members and their names in one request
        people = {
            user_id: name for user_id, name in names.items() if user_id not in self.policy.agents_by_user_id
        }
        return RoomState(room_id, frozenset(names), modes, self.policy.mention_index(people), configured)

    async def thread(self, conversation: Conversation, answering: Iterable[str]) -> ThreadState:
        """The conversation's thread, with `answering` (agent names) as the agents still answering in it,
        and the people whose plain replies joined it among its participants."""
        user_ids = [self.transport.agent_user_id(name) for name in answering]
        state = await thread_state(self.transport, conversation, user_ids)
        root = conversation.thread_root
        joined = self.reply_joins.senders(conversation.room_id, root) if root is not None else frozenset()
        return replace(state, participants=state.participants | joined) if joined else state

    def joined_by_reply(self, conversation: Conversation) -> tuple[str, ...]:
        """The newest plain replies (event ids, oldest first) that joined the conversation's thread."""
        root = conversation.thread_root
        return self.reply_joins.replies(conversation.room_id, root) if root is not None else ()

    def posted(self, event: RoomEvent, conversation: Conversation) -> None:
        """`event` was posted in `conversation`: a plain reply that joined a thread makes its sender one of
        the thread's participants (for the multi-human rule)."""
        root = conversation.thread_root
        if root is not None and event.relation.thread_root is None and event.is_message:
            self.reply_joins.record(conversation.room_id, root, event.event_id, event.sender)

    def agent_name(self, agent: str) -> str:
        """The display name of an agent or a team (its name once config.yaml no longer has it)."""
        return self.responders.get(agent, agent)

    async def sender_name(self, room_id: str, user_id: str) -> str:
        """How a sender is named in an agent's prompt: an agent's display name, else the member's."""
        return (await self.sender_names(room_id, (user_id,)))[user_id]

    async def sender_names(self, room_id: str, user_ids: Collection[str]) -> dict[str, str]:
        """`sender_name` of each of `user_ids`, the room's members read once."""
        agents = self.policy.agents_by_user_id
        names = {user_id: self.agent_name(agents[user_id].name) for user_id in user_ids if user_id in agents}
        people = [user_id for user_id in user_ids if user_id not in agents]
        return names | (await shown_names(self.transport, room_id, people) if people else {})

    def mentioned_agents(self, text: str) -> tuple[str, ...]:
        """The user ids of the agents `text` mentions by name (for a reply's `m.mentions`)."""
        return plain_mentions(text, self.policy.agent_mentions)
