"""The SQLite store: rooms, members and power levels, events with threads, edits and reactions, cursors."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from miniroom.transports.embedded import (
    InvalidEvent,
    NotAllowed,
    PageQuery,
    RoomStore,
    TooLarge,
    UnknownEvent,
    UnknownRoom,
)

HELPER = "@helper:miniroom.local"
YOU = "@you:miniroom.local"


def text(body: str, **relates_to: object) -> dict[str, object]:
    content: dict[str, object] = {"msgtype": "m.text", "body": body}
    if relates_to:
        content["m.relates_to"] = relates_to
    return content


def edit(target: str, body: str) -> dict[str, object]:
    return {
        "msgtype": "m.text",
        "body": f"* {body}",
        "m.new_content": {"msgtype": "m.text", "body": body},
        "m.relates_to": {"rel_type": "m.replace", "event_id": target},
    }


def reaction(target: str, key: str) -> dict[str, object]:
    return {"m.relates_to": {"rel_type": "m.annotation", "event_id": target, "key": key}}


@pytest.fixture
def room_id(store: RoomStore) -> str:
    room = store.ensure_room("lobby", name="Lobby")
    store.join(room.room_id, HELPER, "Helper")
    return room.room_id


def test_database_is_one_wal_file_in_the_data_dir(tmp_path: Path, store: RoomStore) -> None:
    assert store.path == tmp_path / "rooms.sqlite3"
    with sqlite3.connect(store.path) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_rooms_are_created_once_by_key_with_the_local_user_as_admin(store: RoomStore) -> None:
    first = store.ensure_room("lobby", name="Lobby", alias="hall")
    again = store.ensure_room("lobby", name="Other name")
    assert again == first
    assert re.fullmatch(r"![\w-]+:miniroom\.local", first.room_id)
    assert (first.key, first.name, first.alias) == ("lobby", "Lobby", "#hall:miniroom.local")
    assert store.ensure_room("dev").alias == "#dev:miniroom.local"
    assert [(m.user_id, m.power_level) for m in store.members(first.room_id)] == [(YOU, 100)]


def test_agents_join_at_power_zero(store: RoomStore, room_id: str) -> None:
    levels = store.power_levels(room_id)
    assert levels["users"] == {YOU: 100}
    assert levels["users_default"] == 0
    assert {m.user_id: m.display_name for m in store.members(room_id)} == {YOU: "You", HELPER: "Helper"}


def test_local_display_name_follows_configuration(tmp_path: Path) -> None:
    first = RoomStore.open(tmp_path)
    room = first.ensure_room("lobby")
    first.close()
    renamed = RoomStore.open(tmp_path, local_display_name="Ada")
    assert [m.display_name for m in renamed.members(room.room_id)] == ["Ada"]
    renamed.close()


def test_events_are_matrix_shaped_with_increasing_positions(store: RoomStore, room_id: str) -> None:
    first = store.append(room_id, YOU, "m.room.message", text("hello"))
    second = store.append(room_id, HELPER, "m.room.message", text("hi"))
    assert re.fullmatch(r"\$[\w-]+", first["event_id"])
    assert first["room_id"] == room_id
    assert first["sender"] == YOU
    assert first["content"] == {"msgtype": "m.text", "body": "hello"}
    assert first["origin_server_ts"] > 1_600_000_000_000
    assert second["unsigned"]["stream_position"] > first["unsigned"]["stream_position"]
    assert store.events_after(first["unsigned"]["stream_position"]) == [second]
    assert store.event(room_id, first["event_id"]) == first


def test_refusals_name_the_problem(store: RoomStore, room_id: str) -> None:
    with pytest.raises(NotAllowed, match="not a member"):
        store.append(room_id, "@stranger:miniroom.local", "m.room.message", text("hi"))
    with pytest.raises(UnknownRoom, match="no room"):
        store.append("!missing:miniroom.local", YOU, "m.room.message", text("hi"))
    with pytest.raises(InvalidEvent, match='needs a string "body"'):
        store.append(room_id, YOU, "m.room.message", {"msgtype": "m.text"})
    with pytest.raises(TooLarge, match="limit is 65,536"):
        store.append(room_id, YOU, "m.room.message", text("x" * 70_000))
    with pytest.raises(UnknownEvent, match=r"\$nope is not an event"):
        store.append(room_id, YOU, "m.room.message", text("re", rel_type="m.thread", event_id="$nope"))


def test_threads_hold_their_messages_but_not_edits(store: RoomStore, room_id: str) -> None:
    root = store.append(room_id, YOU, "m.room.message", text("root"))["event_id"]
    reply = store.append(
        room_id, HELPER, "m.room.message", text("in thread", rel_type="m.thread", event_id=root)
    )
    store.append(room_id, HELPER, "m.room.message", edit(reply["event_id"], "in thread!"))
    store.append(room_id, YOU, "m.room.message", text("elsewhere"))
    thread = store.thread_messages(room_id, root)
    assert [event["content"]["body"] for event in thread] == ["root", "in thread"]
    with pytest.raises(InvalidEvent, match="itself in a thread"):
        store.append(
            room_id, YOU, "m.room.message", text("x", rel_type="m.thread", event_id=reply["event_id"])
        )


def test_only_the_sender_edits_and_a_bundled_page_shows_the_newest_edit(
    store: RoomStore, room_id: str
) -> None:
    message = store.append(room_id, HELPER, "m.room.message", text("draft"))["event_id"]
    with pytest.raises(NotAllowed, match=r"only its sender @helper:miniroom\.local"):
        store.append(room_id, YOU, "m.room.message", edit(message, "hijacked"))
    for body in ("one", "two", "three"):
        store.append(room_id, HELPER, "m.room.message", edit(message, body))
    (shown,), _ = store.page(room_id, PageQuery(bundled=True))
    assert shown["event_id"] == message
    assert shown["unsigned"]["m.relations"]["m.replace"]["content"]["m.new_content"]["body"] == "three"
    raw, _ = store.page(room_id, PageQuery())
    assert len(raw) == 4


def test_reactions_are_counted_once_per_sender_and_key(store: RoomStore, room_id: str) -> None:
    message = store.append(room_id, YOU, "m.room.message", text("ship it?"))["event_id"]
    store.append(room_id, YOU, "m.reaction", reaction(message, "👍"))
    store.append(room_id, HELPER, "m.reaction", reaction(message, "👍"))
    store.append(room_id, HELPER, "m.reaction", reaction(message, "🎉"))
    with pytest.raises(InvalidEvent, match="already reacted 👍"):
        store.append(room_id, HELPER, "m.reaction", reaction(message, "👍"))
    (shown,), _ = store.page(room_id, PageQuery(bundled=True))
    assert shown["unsigned"]["m.relations"]["m.annotation"]["chunk"] == [
        {"type": "m.reaction", "key": "👍", "count": 2},
        {"type": "m.reaction", "key": "🎉", "count": 1},
    ]


def test_pages_go_forward_and_backward_by_position(store: RoomStore, room_id: str) -> None:
    events = [store.append(room_id, YOU, "m.room.message", text(str(n))) for n in range(5)]
    positions = [event["unsigned"]["stream_position"] for event in events]

    def bodies(query: PageQuery) -> list[str]:
        return [event["content"]["body"] for event in store.page(room_id, query)[0]]

    assert bodies(PageQuery(limit=2)) == ["3", "4"]
    assert bodies(PageQuery(before=positions[3], limit=2)) == ["1", "2"]
    assert bodies(PageQuery(after=positions[1], limit=2)) == ["2", "3"]
    assert store.page(room_id, PageQuery())[1] == positions[-1]


def test_cursors_survive_reopening(tmp_path: Path, store: RoomStore) -> None:
    assert store.cursor("runtime") is None
    store.set_cursor("runtime", 7)
    store.set_cursor("runtime", 9)
    reopened = RoomStore.open(tmp_path)
    assert reopened.cursor("runtime") == 9
    reopened.close()


def test_a_send_repeated_with_its_transaction_id_returns_the_first_event_even_after_a_reopen(
    tmp_path: Path, store: RoomStore, room_id: str
) -> None:
    first = store.append(room_id, HELPER, "m.room.message", text("streaming…"), "txn-1")
    assert store.append(room_id, HELPER, "m.room.message", text("again"), "txn-1") == first
    theirs = store.append(room_id, YOU, "m.room.message", text("mine"), "txn-1")  # ids are per sender
    assert theirs["event_id"] != first["event_id"]
    store.close()
    reopened = RoomStore.open(tmp_path)
    try:
        assert reopened.append(room_id, HELPER, "m.room.message", text("later"), "txn-1") == first
        assert [event["content"]["body"] for event in reopened.events_after(0)] == ["streaming…", "mine"]
    finally:
        reopened.close()
