"""`!thread_mode`, its help reply when used wrongly, and `!words` that are ordinary messages."""

from __future__ import annotations

import pytest

from miniroom.config.config_yaml import ThreadMode
from miniroom.rooms.commands import (
    HELP_TEXT,
    Command,
    Help,
    Outcome,
    ResetThreadMode,
    SetThreadMode,
    ShowThreadMode,
    carry_out_command,
    is_room_admin,
    parse_command,
)

ROOM = "!room:example.org"

PARSE: dict[str, tuple[str | None, Command | None]] = {
    "bare_shows": ("!thread_mode", ShowThreadMode()),
    "show": ("!thread_mode show", ShowThreadMode()),
    "list": ("!thread_mode list", ShowThreadMode()),
    "status": ("  !thread_mode   STATUS ", ShowThreadMode()),
    "room": ("!thread_mode room", SetThreadMode("room")),
    "thread": ("!thread_mode thread", SetThreadMode("thread")),
    "reset": ("!thread_mode reset", ResetThreadMode()),
    "clear": ("!thread_mode clear", ResetThreadMode()),
    "bad_choice": ("!thread_mode rooms", Help('"!thread_mode rooms" is not a choice.')),
    "unknown_word_is_a_message": ("!deploy now", None),
    "known_name_any_case": ("!Thread_Mode room", SetThreadMode("room")),
    "ordinary_message": ("hello !thread_mode", None),
    "bare_bang": ("! what", None),
    "no_body": (None, None),
}


@pytest.mark.parametrize(("body", "expected"), PARSE.values(), ids=PARSE.keys())
def test_parse(body: str | None, expected: Command | None) -> None:
    assert parse_command(body) == expected


class Overrides:
    def __init__(self, mode: ThreadMode | None = None) -> None:
        self.modes: dict[str, ThreadMode] = {ROOM: mode} if mode else {}

    def get(self, room_id: str) -> ThreadMode | None:
        return self.modes.get(room_id)

    def set(self, room_id: str, mode: ThreadMode) -> None:
        self.modes[room_id] = mode

    def clear(self, room_id: str) -> None:
        self.modes.pop(room_id, None)


RUN: dict[str, tuple[str, bool, ThreadMode | None, Outcome, str, ThreadMode | None]] = {
    "show_without_override": ("!thread_mode", False, None, Outcome.SHOWN, "No thread mode override", None),
    "show_with_override_needs_no_admin": (
        "!thread_mode show",
        False,
        "room",
        Outcome.SHOWN,
        "override: room",
        "room",
    ),
    "admin_sets_room": ("!thread_mode room", True, None, Outcome.SET, "override: room", "room"),
    "admin_sets_thread": ("!thread_mode thread", True, "room", Outcome.SET, "override: thread", "thread"),
    "admin_resets": ("!thread_mode reset", True, "room", Outcome.RESET, "override removed", None),
    "non_admin_cannot_set": ("!thread_mode room", False, None, Outcome.DENIED, "Room admin only", None),
    "non_admin_cannot_reset": (
        "!thread_mode clear",
        False,
        "room",
        Outcome.DENIED,
        "Room admin only",
        "room",
    ),
    "wrong_choice_gets_help": (
        "!thread_mode sideways",
        True,
        "room",
        Outcome.HELP,
        '"!thread_mode sideways" is not a choice.\nCommands:',
        "room",
    ),
}


@pytest.mark.parametrize(
    ("body", "admin", "before", "outcome", "reply", "after"), RUN.values(), ids=RUN.keys()
)
def test_run(
    body: str, admin: bool, before: ThreadMode | None, outcome: Outcome, reply: str, after: ThreadMode | None
) -> None:
    overrides = Overrides(before)
    command = parse_command(body)
    assert command is not None
    result = carry_out_command(command, room_id=ROOM, sender_is_admin=admin, overrides=overrides)
    assert (result.outcome, result.override, overrides.get(ROOM)) == (outcome, after, after)
    assert reply in result.reply


def test_help_lists_every_thread_mode_choice() -> None:
    for word in ("show", "list", "status", "room", "thread", "reset", "clear"):
        assert word in HELP_TEXT


ADMIN = {
    "level_100": ({"users": {"@a:x": 100}}, (), True),
    "level_50": ({"users": {"@a:x": 50}}, (), False),
    "users_default_100": ({"users_default": 100}, (), True),
    "room_creator_v12": ({}, ("@a:x",), True),
    "level_not_a_number": ({"users": {"@a:x": "100"}}, (), False),
    "content_not_a_dict": ("power", (), False),
    "users_not_a_dict": ({"users": ["@a:x"]}, (), False),
}


@pytest.mark.parametrize(("content", "creators", "expected"), ADMIN.values(), ids=ADMIN.keys())
def test_is_room_admin(content: object, creators: tuple[str, ...], expected: bool) -> None:
    assert is_room_admin(content, "@a:x", creators) is expected
