"""Teams: agents answering as one. Who is in which room, a team's thread mode, and what its members are
told: in `coordinate` a lead assigns parts and combines the answers; in `collaborate` every member answers
and the answers are combined into one reply."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from miniroom.config.config_yaml import RoomsConfig, TeamConfig, ThreadMode
from miniroom.rooms.thread_mode import RoomRef, agent_thread_mode, group_thread_mode

_ASSIGNMENT = re.compile(r"^\s*(?:[-*•]\s*)?@?([\w.=/+-]+)\s*[:—–-]\s*(.+?)\s*$")


@dataclass(frozen=True, slots=True)
class Member:
    name: str
    display_name: str
    role: str


def members(config: RoomsConfig, team: str) -> tuple[Member, ...]:
    entry = config.teams[team]
    return tuple(
        Member(name, config.agents[name].display_name or name, config.agents[name].role)
        for name in entry.agents
    )


def room_members(config: RoomsConfig, key: str) -> tuple[str, ...]:
    """Everyone who joins room `key`: agents listing it, members of teams listing it, and those teams."""
    names = [name for name, agent in config.agents.items() if key in agent.rooms]
    for team_name, team in config.teams.items():
        if key in team.rooms:
            names += [*team.agents, team_name]
    return tuple(dict.fromkeys(names))


def team_thread_mode(
    config: RoomsConfig, team: TeamConfig, room: RoomRef, override: ThreadMode | None = None
) -> ThreadMode:
    """The room override, else the team's own `thread_mode`, else its members' shared mode (thread when
    they differ)."""
    if override is not None:
        return override
    if team.thread_mode is not None:
        return team.thread_mode
    return group_thread_mode([config.agents[name] for name in team.agents], room)


def thread_modes(
    config: RoomsConfig, room: RoomRef, override: ThreadMode | None = None
) -> tuple[dict[str, ThreadMode], ThreadMode]:
    """Each agent's and team's mode in `room`, and the router's: the mode shared by every agent relevant
    to the room, including agents that join it through a team's `rooms`."""
    modes = {name: agent_thread_mode(agent, room, override) for name, agent in config.agents.items()}
    modes.update(
        {name: team_thread_mode(config, team, room, override) for name, team in config.teams.items()}
    )
    names = set(room.names())
    relevant = {name for name, agent in config.agents.items() if names.intersection(agent.rooms)}
    for team in config.teams.values():
        if names.intersection(team.rooms):
            relevant.update(team.agents)
    router = group_thread_mode([config.agents[name] for name in sorted(relevant)], room, override)
    return modes, router


# What members are told


def assignment_prompt(team: str, crew: Sequence[Member], request: str) -> str:
    """The coordinate lead's first turn: split the request among the members."""
    listing = "\n".join(f"- {member.name}: {member.role or 'no role given'}" for member in crew)
    return (
        f"You lead the team {team}. Its members:\n{listing}\n\nThe request:\n{request}\n\n"
        "Assign parts of the request to members. Answer only with one line per member who gets a part, "
        "as `name: the part`; leave out members with nothing to do."
    )


def parse_assignments(text: str, crew: Sequence[Member]) -> dict[str, str]:
    """Member name -> part, from `name: part` lines naming members (by name or display name)."""
    by_name = {key.casefold(): member.name for member in crew for key in (member.name, member.display_name)}
    parts: dict[str, str] = {}
    for line in text.splitlines():
        match = _ASSIGNMENT.match(line.replace("`", "").replace("**", ""))
        if match is None:
            continue
        name = by_name.get(match.group(1).casefold())
        if name is not None:
            parts[name] = f"{parts[name]}\n{match.group(2)}" if name in parts else match.group(2)
    return parts


def member_prompt(team: str, request: str, part: str | None) -> str:
    """A member's turn: its part of the request (coordinate), or the whole request (collaborate)."""
    if part is None:
        return f"As a member of the team {team}, answer this request:\n{request}"
    return (
        f"As a member of the team {team}, do your part of this request.\n"
        f"The request:\n{request}\n\nYour part:\n{part}"
    )


def combine_prompt(request: str, answers: Mapping[str, str]) -> str:
    """The coordinate lead's last turn: one reply from the members' answers."""
    listed = "\n\n".join(f"## {name}\n{answer}" for name, answer in answers.items())
    return (
        f"Your team answered the request:\n{request}\n\nTheir answers:\n\n{listed}\n\n"
        "Write the team's one reply to the request, combining these answers."
    )


def combined_reply(answers: Mapping[str, str]) -> str:
    """Collaborate: one reply with each member's answer under its name."""
    return "\n\n".join(f"**{name}**\n{answer}" for name, answer in answers.items())
