"""Room `!` commands: `!thread_mode` and `!mode`, with a help reply when used wrongly. Storage stays with the
adapters."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from miniroom.config.config_yaml import ThreadMode

# Said after a `!mode` refusal that a deployment setting could fix.
DEPLOYMENT_NOTE = (
    "Deployment settings are environment variables of `miniroom serve`: set them where you start it (such "
    "as the .env file your service manager reads) and restart it. The requirements are in README.md, "
    "section “Minimal mode and miniroom-agent”, Deployment requirements."
)
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
    "!thread_mode reset (or clear): use each agent's configured thread_mode again\n"
    "!mode AGENT minimal: AGENT answers in this conversation with a short prompt and one bash tool\n"
    "!mode AGENT show: AGENT's mode in this conversation\n"
    "!mode AGENT standard (or reset): AGENT answers in standard mode again"
)
MODE_ACTIONS: Mapping[str, Literal["minimal", "show", "standard"]] = {
    "minimal": "minimal",
    "show": "show",
    "standard": "standard",
    "reset": "standard",
}


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


@dataclass(frozen=True, slots=True)
class ModeCommand:
    """`!mode AGENT minimal|show|standard|reset`: one agent's mode in this conversation."""

    agent: str
    action: Literal["minimal", "show", "standard"]


ThreadModeCommand = ShowThreadMode | SetThreadMode | ResetThreadMode | Help
Command = ThreadModeCommand | ModeCommand


class Outcome(enum.Enum):
    SHOWN = "shown"
    SET = "set"
    RESET = "reset"
    DENIED = "denied"
    HELP = "help"
    UNAVAILABLE = "unavailable"


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


def _mode(argument: str) -> Command:
    words = argument.split()
    if len(words) == 1:
        return ModeCommand(words[0], "show")
    if len(words) == 2 and words[1] in MODE_ACTIONS:
        return ModeCommand(words[0], MODE_ACTIONS[words[1]])
    if not words:
        return Help('"!mode" needs an agent and a choice, e.g. "!mode helper minimal".')
    return Help(f'"!mode {argument}" is not a choice.')


# Every room command by name: a `!word` not listed here is an ordinary message for the agents.
COMMANDS: Mapping[str, Callable[[str], Command]] = {"thread_mode": _thread_mode, "mode": _mode}


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
    command: ThreadModeCommand, *, room_id: str, sender_is_admin: bool, overrides: ThreadModeOverrides
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


class ModeChange(enum.Enum):
    NONE = "none"
    SAVE_MINIMAL = "save minimal"
    CLEAR = "clear"


@dataclass(frozen=True, slots=True)
class ModeFacts:
    """What `!mode` is decided from, as the runtime found it."""

    agent: str | None  # the configured agent the command names; None: no agent of that name is here
    agents_here: tuple[str, ...]
    may_talk: bool  # the sender may talk to that agent
    where: str | None  # "this thread" or "this room"; None: a thread agent, asked outside any thread
    minimal_now: bool
    problems: tuple[str, ...] = ()  # what minimal mode lacks, each with its fix


@dataclass(frozen=True, slots=True)
class ModeResult:
    outcome: Outcome
    reply: str
    change: ModeChange


def run_mode_command(command: ModeCommand, facts: ModeFacts) -> ModeResult:
    """The reply to `!mode`, and what to store: nothing is saved when minimal mode cannot work."""
    if facts.agent is None:
        here = ", ".join(facts.agents_here) or "none"
        return _mode_result(
            Outcome.HELP, f"No agent named {command.agent} answers here (agents here: {here})."
        )
    agent = facts.agent
    if not facts.may_talk:
        return _mode_result(Outcome.DENIED, f"Only people {agent} answers may set its mode.")
    if facts.where is None:
        return _mode_result(
            Outcome.HELP, f"{agent} answers in threads: send !mode inside the thread where you talk with it."
        )
    if command.action == "show":
        return _mode_result(Outcome.SHOWN, describe_mode(agent, facts.minimal_now, facts.where))
    if command.action == "standard":
        change = ModeChange.CLEAR if facts.minimal_now else ModeChange.NONE
        return ModeResult(Outcome.RESET, describe_mode(agent, False, facts.where), change)
    if facts.problems:
        listed = "\n".join(f"- {problem}" for problem in facts.problems)
        reply = f"{agent} cannot answer in minimal mode, so nothing was saved. It needs:\n{listed}"
        reply += f"\n{DEPLOYMENT_NOTE}"
        return _mode_result(Outcome.UNAVAILABLE, reply)
    reply = f"{describe_mode(agent, True, facts.where)} Send !mode {agent} standard to go back."
    return ModeResult(Outcome.SET, reply, ModeChange.SAVE_MINIMAL)


def describe_mode(agent: str, minimal: bool, where: str) -> str:
    if minimal:
        return (
            f"{agent} answers in minimal mode in {where}: a short prompt and one bash tool, whose "
            "miniroom-agent reaches its other tools."
        )
    return f"{agent} answers in standard mode in {where}."


def _mode_result(outcome: Outcome, reply: str) -> ModeResult:
    return ModeResult(outcome, reply, ModeChange.NONE)
