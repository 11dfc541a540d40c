"""What the room policy decides from: the agents, the room's members, and the thread's history."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from miniroom.config.config_yaml import DEFAULT_THREAD_MODE, ParticipationConfig, RoomsConfig, ThreadMode
from miniroom.rooms.mentions import MentionIndex
from miniroom.rooms.teams import room_members, thread_modes
from miniroom.rooms.thread_mode import RoomRef

MAX_THREAD_MESSAGES = 2_000
MAX_THREAD_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class AgentPolicy:
    """One agent as the room policy sees it."""

    name: str
    user_id: str
    display_name: str | None = None
    # Reply permissions: the senders this agent may answer; None answers everyone.
    allowed_senders: frozenset[str] | None = None
    # Adaptive participation (judging untagged messages in multi-human threads); None keeps mentions required.
    participation: ParticipationConfig | None = None

    def may_reply_to(self, sender: str) -> bool:
        return self.allowed_senders is None or sender in self.allowed_senders


@dataclass(frozen=True)
class RoomPolicy:
    """Process-wide facts: every configured agent, bot accounts, service accounts and human aliases."""

    agents: tuple[AgentPolicy, ...]
    bot_accounts: frozenset[str] = frozenset()
    service_accounts: frozenset[str] = frozenset()
    # Several accounts of one person (user id -> the person's main id) count as one human.
    human_aliases: Mapping[str, str] = field(default_factory=dict)
    agents_by_user_id: Mapping[str, AgentPolicy] = field(init=False)
    not_humans: frozenset[str] = field(init=False)
    agent_mentions: MentionIndex = field(init=False)

    def __post_init__(self) -> None:
        by_user_id = {agent.user_id: agent for agent in self.agents}
        object.__setattr__(self, "agents_by_user_id", MappingProxyType(by_user_id))
        not_humans = frozenset(by_user_id) | self.bot_accounts | self.service_accounts
        object.__setattr__(self, "not_humans", not_humans)
        object.__setattr__(self, "agent_mentions", MentionIndex.build(_agent_names(self.agents)))

    def person(self, user_id: str) -> str:
        """The main id of the person `user_id` belongs to (itself unless it is a configured alias)."""
        return self.human_aliases.get(user_id, user_id)

    def count_humans(self, user_ids: Iterable[str], limit: int = 2) -> int:
        """Distinct people among `user_ids` (agents, bots and service accounts excluded), up to `limit`."""
        people: set[str] = set()
        for user_id in user_ids:
            if user_id not in self.not_humans:
                people.add(self.person(user_id))
                if len(people) >= limit:
                    break
        return len(people)

    def mention_index(self, members: Mapping[str, str | None]) -> MentionIndex:
        """Agents plus a room's members (user id -> display name), for plain-text `@name` mentions."""
        member_names = ((user_id, (name,) if name else ()) for user_id, name in members.items())
        return MentionIndex.build([*_agent_names(self.agents), *member_names])


@dataclass(frozen=True)
class RoomState:
    """One room now: who has joined, each agent's thread mode here, and how to read plain mentions."""

    room_id: str
    joined: frozenset[str]
    thread_modes: Mapping[str, ThreadMode] = field(default_factory=dict)
    # Agents plus members (`RoomPolicy.mention_index`); None matches plain `@name` text against agents only.
    mentions: MentionIndex | None = None
    # The agents config.yaml puts in this room; None for a room it does not list (e.g. one joined by invite).
    configured_agents: frozenset[str] | None = None

    def thread_mode(self, agent: str) -> ThreadMode:
        return self.thread_modes.get(agent, DEFAULT_THREAD_MODE)

    def hosts(self, agent: AgentPolicy) -> bool:
        """Whether `agent` belongs here: joined, and listed for the room when config.yaml lists the room."""
        listed = self.configured_agents is None or agent.name in self.configured_agents
        return listed and agent.user_id in self.joined


@dataclass(frozen=True, slots=True)
class ThreadState:
    """What the adapter knows of the thread a message belongs to (all empty for a new thread)."""

    participants: frozenset[str] = frozenset()  # senders of its messages, the root included
    message_count: int = 0
    stored_bytes: int = 0
    answering: frozenset[str] = frozenset()  # agents (user ids) with a reply in progress there

    @property
    def too_long(self) -> bool:
        """Too long to read at once: more than 2,000 messages or 16 MiB of stored content."""
        return self.message_count > MAX_THREAD_MESSAGES or self.stored_bytes > MAX_THREAD_BYTES


NEW_THREAD = ThreadState()


def room_policy(
    config: RoomsConfig, user_ids: Mapping[str, str], service_accounts: frozenset[str] = frozenset()
) -> RoomPolicy:
    """The policy for `config`, given the Matrix user id of each agent and team (the transport decides
    them). A team is one more responder: mentionable, counted as an agent, never a participant judge."""
    agents = tuple(
        AgentPolicy(
            name=name,
            user_id=user_ids[name],
            display_name=agent.display_name,
            participation=agent.participation,
        )
        for name, agent in config.agents.items()
    )
    teams = tuple(
        AgentPolicy(name=name, user_id=user_ids[name], display_name=team.display_name)
        for name, team in config.teams.items()
    )
    aliases = {alias: person for person, others in config.human_aliases.items() for alias in others}
    return RoomPolicy(
        agents=agents + teams,
        bot_accounts=frozenset(config.bot_accounts),
        service_accounts=service_accounts,
        human_aliases=aliases,
    )


def room_agents(config: RoomsConfig) -> dict[str, tuple[str, ...]]:
    """Each configured room's agents and teams (room key -> names): those whose `rooms:` names it, and
    the members of teams whose `rooms:` names it."""
    return {key: room_members(config, key) for key in config.rooms}


def room_thread_modes(
    config: RoomsConfig, room: RoomRef, override: ThreadMode | None = None
) -> tuple[dict[str, ThreadMode], ThreadMode]:
    """Each agent's and team's thread mode in `room`, and the router's (see `teams.thread_modes`)."""
    return thread_modes(config, room, override)


def _agent_names(agents: Iterable[AgentPolicy]) -> list[tuple[str, tuple[str, ...]]]:
    return [(agent.user_id, (agent.name, agent.display_name or agent.name)) for agent in agents]
