"""Etiquette rules of "Threads, Replies & Participation" decided purely: the names a room goes by for
`room_thread_modes`, plain replies to a thread's root, images in threads with several people, and agents
still answering in a thread."""

from __future__ import annotations

import pytest

from miniroom.rooms.thread_mode import RoomRef


@pytest.mark.parametrize(
    ("ref", "names"),
    [
        (RoomRef("!a:hs", "lobby", None, "hs"), ("!a:hs", "lobby", "#lobby:hs")),
        (RoomRef("!a:hs", "lobby", "hall", "hs"), ("!a:hs", "lobby", "hall", "#hall:hs")),
        (RoomRef("!a:hs", "lobby", "#hall", "hs"), ("!a:hs", "lobby", "#hall", "#hall:hs")),
        (RoomRef("!a:hs", "lobby", "#hall:other", "hs"), ("!a:hs", "lobby", "#hall:other")),
        (RoomRef("!a:hs", "lobby"), ("!a:hs", "lobby")),
        (RoomRef("!a:hs", server_name="hs"), ("!a:hs",)),
    ],
    ids=["key_only", "alias_name", "alias_with_hash", "full_alias", "no_server_known", "room_not_configured"],
)
def test_a_room_goes_by_its_id_key_alias_and_full_alias(ref: RoomRef, names: tuple[str, ...]) -> None:
    assert ref.names() == names
