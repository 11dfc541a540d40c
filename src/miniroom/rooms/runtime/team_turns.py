"""A team's turn: its members answer (in parallel) in sessions of their own, and one reply is posted from
the team's account. `coordinate`: the lead (the first member) assigns parts, then combines the answers;
`collaborate`: every member answers the whole request and the answers are combined under their names."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from miniroom.agent import offer_person
from miniroom.engine import (
    Agent,
    AgentEvent,
    MessageCompleted,
    Person,
    RetryScheduled,
    TextDelta,
    ToolEnded,
    ToolStarted,
    TurnEnded,
    UsageReported,
)
from miniroom.llm import Usage
from miniroom.rooms.runtime.agents import AgentFactory
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.running import STOPPED_TURN, RunningTurn
from miniroom.rooms.teams import (
    Member,
    assignment_prompt,
    combine_prompt,
    combined_reply,
    member_prompt,
    members,
    parse_assignments,
)

log = logging.getLogger(__name__)
EVERY_MEMBER_FAILED = "every member of the team failed"


class ReplySink(Protocol):
    """Where a team's reply goes as it is made: a room's `ReplyWriter`, or an OpenAI-compatible answer."""

    def on_event(self, event: AgentEvent) -> None: ...

    def show(self, text: str) -> None: ...


@dataclass(frozen=True, slots=True)
class MemberAnswer:
    member: Member
    text: str
    failure: str | None


class TeamTurns:
    """Runs team turns with engine agents from `factory`; `failure_reason` reads a member's turn end."""

    def __init__(
        self,
        factory: AgentFactory,
        failure_reason: Callable[[TurnEnded], str | None],
        person: Callable[[Turn, ReplySink], Person | None] = lambda turn, writer: None,
    ) -> None:
        """`person`: who decides on the members' calls that need approval (None: no one, they are
        refused)."""
        self.factory, self.failure_reason, self.person = factory, failure_reason, person

    def is_team(self, name: str) -> bool:
        return name in self.factory.config.teams

    async def run(self, turn: Turn, writer: ReplySink, running: RunningTurn) -> str | None:
        """Answer `turn` as its team; the reason it failed, or None."""
        crew = members(self.factory.config, turn.agent)
        if self.factory.config.teams[turn.agent].mode == "collaborate":
            answers = await self._answer_all(turn, crew, {}, writer, running)
            if all(answer.failure for answer in answers):
                return _all_failed(answers)
            writer.show(combined_reply(_texts(answers)))
            return None
        return await self._coordinate(turn, crew, writer, running)

    async def _coordinate(
        self, turn: Turn, crew: tuple[Member, ...], writer: ReplySink, running: RunningTurn
    ) -> str | None:
        lead = self._agent(turn, crew[0], writer, running)
        try:
            planned = await lead.prompt(assignment_prompt(turn.agent, crew, turn.prompt))
            failure = self.failure_reason(planned)
            if failure is not None:
                return f"the lead {crew[0].display_name} could not assign the work: {failure}"
            parts = parse_assignments(planned.message.text, crew)
            if not parts:
                log.info(
                    "The lead of %s assigned no parts; every member answers the whole request", turn.agent
                )
            answers = await self._answer_all(turn, crew, parts, writer, running)
            if all(answer.failure for answer in answers):
                return _all_failed(answers)
            if running.stopped_by is not None:  # a member's answer stopped: the lead does not combine
                return STOPPED_TURN
            lead.subscribe(_text_of(writer))  # the combined reply streams as the lead writes it
            combined = await lead.prompt(combine_prompt(turn.prompt, _texts(answers)))
            return self.failure_reason(combined)
        finally:
            await lead.aclose()

    async def _answer_all(
        self,
        turn: Turn,
        crew: tuple[Member, ...],
        parts: dict[str, str],
        writer: ReplySink,
        running: RunningTurn,
    ) -> list[MemberAnswer]:
        """Each member with a part (every member when `parts` is empty) answers, all at once."""
        chosen = [member for member in crew if not parts or member.name in parts]
        return list(
            await asyncio.gather(
                *(self._answer(turn, member, parts.get(member.name), writer, running) for member in chosen)
            )
        )

    async def _answer(
        self, turn: Turn, member: Member, part: str | None, writer: ReplySink, running: RunningTurn
    ) -> MemberAnswer:
        agent = self._agent(turn, member, writer, running)
        try:
            if running.stopped_by is not None:
                return MemberAnswer(member, "", STOPPED_TURN)
            ended = await agent.prompt(member_prompt(turn.agent, turn.prompt, part))
        finally:
            await agent.aclose()
        return MemberAnswer(member, ended.message.text, self.failure_reason(ended))

    def _agent(self, turn: Turn, member: Member, writer: ReplySink, running: RunningTurn) -> Agent:
        """A member's engine agent for this team; its tool calls and retries show in the team's reply."""
        agent = self.factory.build(member.name, turn.conversation, team=turn.agent)
        person = self.person(turn, writer)
        if person is not None:
            offer_person(agent, person)
        agent.subscribe(running.on_event)
        agent.subscribe(_progress_lines(member, writer, running))
        running.attach(agent)
        return agent


def _progress_lines(member: Member, writer: ReplySink, running: RunningTurn) -> Callable[[AgentEvent], None]:
    """A member's calls, their ends and retries go to the team's reply, with the whole team's spend so far
    (`running` adds up every member's requests; the request itself is counted there, not again)."""

    def listen(event: AgentEvent) -> None:
        if isinstance(event, ToolStarted):
            writer.on_event(replace(event, summary=f"{member.display_name}: {event.summary}"))
        elif isinstance(event, ToolEnded | RetryScheduled):
            writer.on_event(event)
        elif isinstance(event, UsageReported):
            writer.on_event(UsageReported(Usage(), replace(running.usage), event.session))

    return listen


def _text_of(writer: ReplySink) -> Callable[[AgentEvent], None]:
    def listen(event: AgentEvent) -> None:
        if isinstance(event, TextDelta | MessageCompleted):
            writer.on_event(event)

    return listen


def _texts(answers: list[MemberAnswer]) -> dict[str, str]:
    return {
        answer.member.display_name: answer.text if answer.failure is None else f"⚠ failed: {answer.failure}"
        for answer in answers
    }


def _all_failed(answers: list[MemberAnswer]) -> str:
    reasons = "; ".join(f"{answer.member.display_name}: {answer.failure}" for answer in answers)
    return f"{EVERY_MEMBER_FAILED} ({reasons})"
