"""Thread mode resolution: Matrix threads, or one continuous conversation per room."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from miniroom.config.config_yaml import DEFAULT_THREAD_MODE, ThreadMode


class ThreadModeSettings(Protocol):
    """An agent's configured modes (the config model's `agents.<name>` satisfies this)."""

    @property
    def thread_mode(self) -> ThreadMode: ...

    @property
    def room_thread_modes(self) -> Mapping[str, ThreadMode]: ...


@dataclass(frozen=True, slots=True)
class RoomRef:
    """The names a room goes by: its Matrix room ID, its key under `rooms:`, and its alias."""

    room_id: str
    key: str | None = None
    alias: str | None = None  # as config.yaml writes it: `lobby`, `#lobby` or `#lobby:server`
    server_name: str | None = None  # the homeserver's, for the full alias

    def names(self) -> tuple[str, ...]:
        """Room ID first, then key, then alias (as written, then in full): the order a `room_thread_modes`
        entry is looked up in."""
        names = (self.room_id, self.key, self.alias, self.full_alias)
        return tuple(dict.fromkeys(name for name in names if name))

    @property
    def full_alias(self) -> str | None:
        """The room's Matrix alias, `#name:server`, made from its configured alias, else its key."""
        name = (self.alias or self.key or "").removeprefix("#")
        if ":" in name:
            return f"#{name}"
        return f"#{name}:{self.server_name}" if name and self.server_name else None


def agent_thread_mode(
    agent: ThreadModeSettings, room: RoomRef, override: ThreadMode | None = None
) -> ThreadMode:
    """The room override from `!thread_mode`, else the agent's entry for this room, else its thread_mode."""
    if override is not None:
        return override
    per_room = agent.room_thread_modes
    if per_room:
        for name in room.names():
            mode = per_room.get(name)
            if mode is not None:
                return mode
    return agent.thread_mode


def shared_thread_mode(modes: Iterable[ThreadMode]) -> ThreadMode:
    """The mode every member agrees on, else (or with no members) thread."""
    distinct = set(modes)
    if len(distinct) == 1:
        return distinct.pop()
    return DEFAULT_THREAD_MODE


def group_thread_mode(
    agents: Iterable[ThreadModeSettings], room: RoomRef, override: ThreadMode | None = None
) -> ThreadMode:
    """A team's mode from its members, or the router's from every agent relevant to the room."""
    if override is not None:
        return override
    return shared_thread_mode(agent_thread_mode(agent, room) for agent in agents)
