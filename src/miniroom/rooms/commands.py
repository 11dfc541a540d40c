"""Room `!` commands: `!thread_mode`, with a help reply when used wrongly. Storage stays with the adapters."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from miniroom.config.config_yaml import ThreadMode

ADMIN_POWER_LEVEL = 100
ROOM_ADMIN_ONLY = "Room admin only"
_COMMAND = re.compile(r"\s*!([A-Za-z][\w-]*)(.*)\Z", re.S)
_SHOW_WORDS = frozenset({"", "show", "list", "status"})
_RESET_WORDS = frozenset({"reset", "clear"})
HELP_TEXT = (
    "Commands:\n"
    "!thread_mode (or show, list, status): show this room's thread mode override\n"
    "!thread_mode room: one continuous conversation for the whole room\n"
    "!thread_mode thread: Matrix threads for separate conversations\n"
    "!thread_mode reset (or clear): use each agent's configured thread_mode again"
)


class ThreadModeOverrides(Protocol):
    """Per-room `!thread_mode` overrides, kept by the adapter in runtime state (not in config.yaml)."""

    def get(self, room_id: str) -> ThreadMode | None: ...

    def set(self, room_id: str, mode: ThreadMode) -> None: ...

    def clear(self, room_id: str) -> None: ...


@dataclass(frozen=True, slots=True)
class ShowThreadMode:
    pass


@dataclass(frozen=True, slots=True)
class SetThreadMode:
    mode: ThreadMode


@dataclass(frozen=True, slots=True)
class ResetThreadMode:
    pass


@dataclass(frozen=True, slots=True)
class Help:
    """A known command used wrongly: answered with the help text."""

    problem: str


Command = ShowThreadMode | SetThreadMode | ResetThreadMode | Help


class Outcome(enum.Enum):
    SHOWN = "shown"
    SET = "set"
    RESET = "reset"
    DENIED = "denied"
    HELP = "help"


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What happened, the reply to post, and the room's override afterwards."""

    outcome: Outcome
    reply: str
    override: ThreadMode | None


def _thread_mode(argument: str) -> Command:
    if argument in _SHOW_WORDS:
        return ShowThreadMode()
    if argument in _RESET_WORDS:
        return ResetThreadMode()
    if argument in ("room", "thread"):
        return SetThreadMode("room" if argument == "room" else "thread")
    return Help(f'"!thread_mode {argument}" is not a choice.')


# Every room command by name: a `!word` not listed here is an ordinary message for the agents.
COMMANDS: Mapping[str, Callable[[str], Command]] = {"thread_mode": _thread_mode}


def _known(body: str | None) -> tuple[str, str] | None:
    """The command name and its argument (both lower-cased) when `body` is a known command."""
    match = _COMMAND.match(body) if body is not None else None
    if match is None or match.group(1).lower() not in COMMANDS:
        return None
    return match.group(1).lower(), match.group(2).strip().lower()


def is_command(body: str | None) -> bool:
    """Whether a message is a known `!` command (commands are answered here, never by agents)."""
    return _known(body) is not None


def parse_command(body: str | None) -> Command | None:
    """The command in `body`, or None when it is an ordinary message."""
    known = _known(body)
    return None if known is None else COMMANDS[known[0]](known[1])


def carry_out_command(
    command: Command, *, room_id: str, sender_is_admin: bool, overrides: ThreadModeOverrides
) -> CommandResult:
    """Carry out `command` in `room_id`; only room admins may set or reset the override."""
    current = overrides.get(room_id)
    if isinstance(command, Help):
        return CommandResult(Outcome.HELP, f"{command.problem}\n{HELP_TEXT}", current)
    if isinstance(command, ShowThreadMode):
        return CommandResult(Outcome.SHOWN, describe_override(current), current)
    if not sender_is_admin:
        return CommandResult(Outcome.DENIED, ROOM_ADMIN_ONLY, current)
    if isinstance(command, SetThreadMode):
        overrides.set(room_id, command.mode)
        return CommandResult(Outcome.SET, describe_override(command.mode), command.mode)
    overrides.clear(room_id)
    reply = "Thread mode override removed: agents use their configured thread_mode and room_thread_modes."
    return CommandResult(Outcome.RESET, reply, None)


def describe_override(mode: ThreadMode | None) -> str:
    if mode is None:
        return "No thread mode override in this room: agents use their configured thread_mode."
    if mode == "room":
        return "Thread mode override: room (one continuous conversation for the whole room)."
    return "Thread mode override: thread (Matrix threads for separate conversations)."


def is_room_admin(power_levels: object, user_id: str, creators: Iterable[str] = ()) -> bool:
    """Admin by `m.room.power_levels` content (level 100 or more), or a room creator (room version 12)."""
    if user_id in creators:
        return True
    if not isinstance(power_levels, Mapping):
        return False
    users = power_levels.get("users")
    level = users.get(user_id) if isinstance(users, Mapping) else None
    if level is None:
        level = power_levels.get("users_default", 0)
    return type(level) is int and level >= ADMIN_POWER_LEVEL
