"""Who answers a message, and in which conversation: mentions, multi-human threads, routing, hand-offs."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain

from miniroom.config.config_yaml import ThreadMode
from miniroom.rooms.commands import is_command
from miniroom.rooms.conversation import Conversation, EventLookup
from miniroom.rooms.events import RoomEvent, parse_event
from miniroom.rooms.mentions import MentionIndex, extract_mentions, trailing_mention
from miniroom.rooms.policy import NEW_THREAD, AgentPolicy, RoomPolicy, RoomState, ThreadState


class SilenceReason(enum.Enum):
    """Why an agent stays silent; one value per rule and exception."""

    NOT_A_MESSAGE = "not_a_message"  # reactions, redactions, state events, malformed events
    EDIT = "edit"  # edits go through `regenerate_on_edit` instead
    NOT_TEXT = "not_text"  # locations, polls and other kinds: agents read text, files and images only
    COMMAND = "command"  # `!` commands are answered by `commands`, never by agents
    OWN_MESSAGE = "own_message"
    NOT_IN_ROOM = "not_in_room"  # not joined to this room, or config.yaml puts it in other rooms
    SENDER_NOT_ALLOWED = "sender_not_allowed"  # reply permissions exclude the sender
    FROM_AGENT = "from_agent"  # agents answer agents only when handed off to by a trailing mention
    OTHER_AGENT_MENTIONED = "other_agent_mentioned"  # rule 1: someone else was tagged
    MENTIONS_OTHERS = "mentions_others"  # rule 5: only joined people (not agents or bots) were tagged
    MULTI_HUMAN_NEEDS_MENTION = "multi_human_needs_mention"  # rule 4
    THREAD_TOO_LONG = "thread_too_long"  # too long to read at once; mention an agent to continue it
    OTHER_AGENT_IN_THREAD = "other_agent_in_thread"  # rule 3: the agent already in the thread continues
    ROUTED_TO_OTHER = "routed_to_other"  # the router picked another agent
    DECLINED = "declined"  # adaptive participation: judged, and this message is not for the agent
    JUDGMENT_FAILED = "judgment_failed"  # adaptive participation: no judgment could be had; stays quiet


class ResponseReason(enum.Enum):
    MENTIONED = "mentioned"  # rule 1
    ONLY_CANDIDATE = "only_candidate"  # rules 2 and 3: the single eligible agent
    IN_THREAD = "in_thread"  # rule 3: the agent already answering in this thread continues
    HANDOFF = "handoff"  # another agent's reply ended with a mention of this agent
    ROUTED = "routed"  # the router picked this agent
    JUDGED = "judged"  # adaptive participation: the agent judged that it should answer


@dataclass(frozen=True, slots=True)
class Respond:
    conversation: Conversation  # where the reply goes: the room level or a thread (new or existing)
    reason: ResponseReason


@dataclass(frozen=True, slots=True)
class Silent:
    reason: SilenceReason


@dataclass(frozen=True, slots=True)
class Judge:
    """Adaptive participation: the agent judges whether to answer; `conversation` is where it would, and
    `thread_root` the thread whose messages it judges."""

    conversation: Conversation
    thread_root: str | None = None


@dataclass(frozen=True, slots=True)
class NeedsRouting:
    """Several agents could answer an untagged message: the router (a separate model call) picks one."""

    candidates: tuple[str, ...]


Decision = Respond | Silent | Judge | NeedsRouting


@dataclass(frozen=True)
class RoomDecision:
    """Every configured agent's decision for one event, in configuration order."""

    event: RoomEvent
    conversation: Conversation  # the event's own conversation
    decisions: Mapping[str, Decision]
    routed_conversations: Mapping[str, Conversation]  # where each routing candidate would reply

    @property
    def responders(self) -> tuple[str, ...]:
        return tuple(name for name, decision in self.decisions.items() if isinstance(decision, Respond))

    @property
    def routing(self) -> NeedsRouting | None:
        return next((d for d in self.decisions.values() if isinstance(d, NeedsRouting)), None)

    def route_to(self, chosen: str) -> RoomDecision:
        """The decision after the router picked `chosen`: it responds, the other candidates stay silent."""
        if chosen not in self.routed_conversations:
            raise ValueError(
                f"{chosen!r} is not a routing candidate; choose one of {list(self.routed_conversations)}"
            )
        decisions = dict(self.decisions)
        for name in self.routed_conversations:
            decisions[name] = Silent(SilenceReason.ROUTED_TO_OTHER)
        decisions[chosen] = Respond(self.routed_conversations[chosen], ResponseReason.ROUTED)
        return replace(self, decisions=decisions, routed_conversations={})


def decide(
    event: RoomEvent,
    policy: RoomPolicy,
    room: RoomState,
    *,
    conversation: Conversation | None = None,
    thread: ThreadState | None = None,
) -> RoomDecision:
    """Decide, for every configured agent, whether it answers `event` and where.

    `conversation` comes from `resolve_conversation` (default: the event's own `m.thread`, no lookups);
    `thread` describes that thread's history when the event is in one.
    """
    conversation = conversation or Conversation(room.room_id, event.relation.thread_root)
    builder = _Builder(event, conversation, policy, room)
    blanket = _blanket_silence(event)
    if blanket is not None:
        builder.silence(policy.agents, blanket)
        return builder.result()
    eligible = builder.eligible()
    index = room.mentions or policy.agent_mentions
    if event.sender in policy.agents_by_user_id:
        target = handoff_target(event, policy, index)
        builder.respond([agent for agent in eligible if agent.name == target], ResponseReason.HANDOFF)
        builder.silence(eligible, SilenceReason.FROM_AGENT)
        return builder.result()
    mentions = extract_mentions(event, index)
    if any(user_id in policy.agents_by_user_id for user_id in mentions):
        builder.respond([agent for agent in eligible if agent.user_id in mentions], ResponseReason.MENTIONED)
        builder.silence(eligible, SilenceReason.OTHER_AGENT_MENTIONED)
    elif _mentions_other_people(mentions, event.sender, policy, room):
        builder.silence(eligible, SilenceReason.MENTIONS_OTHERS)
    elif conversation.is_thread:
        tagged = _mentions_a_person(mentions, event.sender, policy)
        _apply_thread_rules(builder, eligible, thread or NEW_THREAD, tagged)
    else:
        builder.pick(eligible, ResponseReason.ONLY_CANDIDATE)
    return builder.result()


def _apply_thread_rules(
    builder: _Builder, eligible: Sequence[AgentPolicy], thread: ThreadState, tagged: bool
) -> None:
    """Rules 3 and 4, and adaptive participation (text only); `tagged`: the message mentions a person. An
    agent still answering in the thread is in it, though its reply has not shown yet."""
    policy, sender = builder.policy, builder.event.sender
    if policy.count_humans(chain(thread.participants, (sender,))) >= 2:
        if not tagged and builder.event.is_text:
            builder.judge(agent for agent in eligible if may_judge(agent, thread))
        builder.silence(eligible, SilenceReason.MULTI_HUMAN_NEEDS_MENTION)
    elif len(eligible) > 1 and thread.too_long and not thread.answering:
        builder.silence(eligible, SilenceReason.THREAD_TOO_LONG)
    else:
        in_thread = [
            agent
            for agent in eligible
            if agent.user_id in thread.participants or agent.user_id in thread.answering
        ]
        if in_thread:
            builder.pick(in_thread, ResponseReason.IN_THREAD)
            builder.silence(eligible, SilenceReason.OTHER_AGENT_IN_THREAD)
        else:
            builder.pick(eligible, ResponseReason.ONLY_CANDIDATE)


def may_judge(agent: AgentPolicy, thread: ThreadState) -> bool:
    """Adaptive participation: the agent opted in and has already replied in the thread; agents merely
    present in the room never join."""
    return agent.participation is not None and agent.user_id in thread.participants


def handoff_target(event: RoomEvent, policy: RoomPolicy, index: MentionIndex | None = None) -> str | None:
    """The agent an agent's reply hands off to by ending with its mention; that agent gets a new message."""
    if event.sender not in policy.agents_by_user_id:
        return None
    user_id = trailing_mention(event, index or policy.agent_mentions)
    agent = policy.agents_by_user_id.get(user_id) if user_id else None
    return agent.name if agent is not None and agent.user_id != event.sender else None


def _blanket_silence(event: RoomEvent) -> SilenceReason | None:
    if event.is_edit:
        return SilenceReason.EDIT
    if not event.is_message:
        return SilenceReason.NOT_A_MESSAGE
    if not event.is_readable:
        return SilenceReason.NOT_TEXT
    if event.is_text and is_command(event.body):
        return SilenceReason.COMMAND
    return None


def _mentions_other_people(mentions: Iterable[str], sender: str, policy: RoomPolicy, room: RoomState) -> bool:
    """Rule 5: tagged joined users that are not agents, bots or the sender (by any of their accounts);
    absent users do not count."""
    sender = policy.person(sender)
    return any(
        user_id in room.joined and user_id not in policy.not_humans and policy.person(user_id) != sender
        for user_id in mentions
    )


def _mentions_a_person(mentions: Iterable[str], sender: str, policy: RoomPolicy) -> bool:
    """Whether the message tags a person other than its sender, joined or not (agents and bots aside)."""
    sender = policy.person(sender)
    return any(user_id not in policy.not_humans and policy.person(user_id) != sender for user_id in mentions)


class _Builder:
    """Collects one decision per agent; the first decision given to an agent is final."""

    def __init__(
        self, event: RoomEvent, conversation: Conversation, policy: RoomPolicy, room: RoomState
    ) -> None:
        self.event, self.conversation, self.policy, self.room = event, conversation, policy, room
        self.decisions: dict[str, Decision] = {}
        self.routed: dict[str, Conversation] = {}

    def eligible(self) -> list[AgentPolicy]:
        """Agents that may answer this sender here; the others get their reason now."""
        sender = self.event.sender
        eligible = []
        for agent in self.policy.agents:
            if agent.user_id == sender:
                self.decisions[agent.name] = Silent(SilenceReason.OWN_MESSAGE)
            elif not self.room.hosts(agent):
                self.decisions[agent.name] = Silent(SilenceReason.NOT_IN_ROOM)
            elif not agent.may_reply_to(sender):
                self.decisions[agent.name] = Silent(SilenceReason.SENDER_NOT_ALLOWED)
            else:
                eligible.append(agent)
        return eligible

    def respond(self, agents: Iterable[AgentPolicy], reason: ResponseReason) -> None:
        for agent in agents:
            self.decisions.setdefault(agent.name, Respond(self.reply_conversation(agent), reason))

    def judge(self, agents: Iterable[AgentPolicy]) -> None:
        for agent in agents:
            judge = Judge(self.reply_conversation(agent), self.conversation.thread_root)
            self.decisions.setdefault(agent.name, judge)

    def silence(self, agents: Iterable[AgentPolicy], reason: SilenceReason) -> None:
        silent = Silent(reason)
        for agent in agents:
            self.decisions.setdefault(agent.name, silent)

    def pick(self, candidates: Sequence[AgentPolicy], reason: ResponseReason) -> None:
        """One candidate answers; several go to the router."""
        if len(candidates) <= 1:
            self.respond(candidates, reason)
            return
        routing = NeedsRouting(tuple(agent.name for agent in candidates))
        for agent in candidates:
            self.decisions.setdefault(agent.name, routing)
            self.routed[agent.name] = self.reply_conversation(agent)

    def reply_conversation(self, agent: AgentPolicy) -> Conversation:
        return reply_conversation(self.event, self.conversation, self.room.thread_mode(agent.name))

    def result(self) -> RoomDecision:
        ordered = {agent.name: self.decisions[agent.name] for agent in self.policy.agents}
        return RoomDecision(self.event, self.conversation, ordered, self.routed)


def reply_conversation(event: RoomEvent, conversation: Conversation, mode: ThreadMode) -> Conversation:
    """Room mode answers at the room level; thread mode answers in the thread, starting one if needed."""
    if mode == "room":
        return Conversation(conversation.room_id)
    return Conversation(conversation.room_id, conversation.thread_root or event.event_id)


@dataclass(frozen=True, slots=True)
class Regeneration:
    """An agent reply to regenerate for edited content, and edit in place."""

    agent: str
    reply_event_id: str
    original_event_id: str
    body: str
    formatted_body: str | None


def regenerate_on_edit(
    edit: RoomEvent,
    *,
    policy: RoomPolicy,
    get_event: EventLookup,
    agent_replies: Callable[[str], Mapping[str, str]],
    newest_edit: RoomEvent | None = None,
) -> tuple[Regeneration, ...]:
    """The agent replies to regenerate after a person edited the message they answered.

    `agent_replies(event_id)` maps agent name -> the reply it sent to that message. `newest_edit` is the
    newest edit seen so far for the same message: an older edit arriving late regenerates nothing.
    Edits by agents, edits of unknown messages, edits by someone other than the author and edits of `!`
    commands (answered by `commands`, never by agents) are ignored.
    """
    target = edit.relation.replaces
    if target is None or edit.body is None or edit.sender in policy.agents_by_user_id:
        return ()
    if newest_edit is not None and newest_edit.relation.replaces == target and _newer(newest_edit, edit):
        return ()
    raw = get_event(target)
    original = parse_event(raw) if raw is not None else None
    if original is None or original.sender != edit.sender or original.is_edit:
        return ()
    if _blanket_silence(original) is SilenceReason.COMMAND:
        return ()
    replies = agent_replies(target)
    return tuple(
        Regeneration(agent.name, replies[agent.name], target, edit.body, edit.formatted_body)
        for agent in policy.agents
        if agent.name in replies
    )


def _newer(first: RoomEvent, second: RoomEvent) -> bool:
    return (first.origin_server_ts, first.event_id) > (second.origin_server_ts, second.event_id)
