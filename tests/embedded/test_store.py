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
    again = store.ensure_room("lobby")
    assert again == first
    renamed = store.ensure_room("lobby", name="Other name")  # config.yaml's display_name changed
    assert (renamed.room_id, renamed.name) == (first.room_id, "Other name")
    assert store.ensure_room("lobby") == renamed
    assert re.fullmatch(r"![\w-]+:miniroom\.local", first.room_id)
    assert (first.key, first.name, first.alias) == ("lobby", "Lobby", "#hall:miniroom.local")
    assert store.ensure_room("dev").alias == "#dev:miniroom.local"
    assert [(m.user_id, m.power_level) for m in store.members(first.room_id)] == [(YOU, 100)]
    # The rename is an event, as on a homeserver, so open pages follow it; an unchanged name adds none.
    [named] = store.events_after(0)
    assert (named["type"], named["sender"], named["content"]) == ("m.room.name", YOU, {"name": "Other name"})


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
    newest = thread[1]["unsigned"]["m.relations"]["m.replace"]
    assert newest["content"]["m.new_content"]["body"] == "in thread!", "each with its newest edit bundled"
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
    assert reaction_counts(store, room_id) == [("👍", 2, {YOU, HELPER}), ("🎉", 1, {HELPER})]


def reaction_counts(store: RoomStore, room_id: str) -> list[tuple[str, int, set[str]]]:
    """The first message's bundled reactions: key, count and who reacted, in the order of the first."""
    shown = store.page(room_id, PageQuery(bundled=True))[0][0]
    chunk = shown["unsigned"].get("m.relations", {}).get("m.annotation", {"chunk": []})["chunk"]
    return [
        (item["key"], item["count"], {event["sender"] for event in item["io.miniroom.events"]})
        for item in chunk
    ]


def redaction(target: str, reason: str | None = None) -> dict[str, object]:
    return {"redacts": target} if reason is None else {"redacts": target, "reason": reason}


def test_a_redacted_reaction_no_longer_counts_and_may_be_given_again(store: RoomStore, room_id: str) -> None:
    message = store.append(room_id, HELPER, "m.room.message", text("ship it?"))["event_id"]
    mine = store.append(room_id, YOU, "m.reaction", reaction(message, "👍"))
    store.append(room_id, HELPER, "m.reaction", reaction(message, "👍"))
    redacted = store.append(room_id, YOU, "m.room.redaction", redaction(mine["event_id"], "oops"))
    assert redacted["content"] == {"redacts": mine["event_id"], "reason": "oops"}
    assert reaction_counts(store, room_id) == [("👍", 1, {HELPER})]
    pruned = store.event(room_id, mine["event_id"])
    assert pruned is not None
    # The relation stays (MSC3389), so the event keeps its place; redacted_because says it is gone.
    assert pruned["content"] == {"m.relates_to": mine["content"]["m.relates_to"]}
    assert pruned["unsigned"]["redacted_because"]["event_id"] == redacted["event_id"]
    again = store.append(room_id, YOU, "m.reaction", reaction(message, "👍"))
    assert reaction_counts(store, room_id) == [("👍", 2, {YOU, HELPER})]
    assert again["event_id"] != mine["event_id"]
    # A bundled page shows the message only: reactions and redactions are applied to it.
    assert [event["event_id"] for event in store.page(room_id, PageQuery(bundled=True))[0]] == [message]


def test_a_redacted_message_keeps_its_thread_and_loses_its_text(store: RoomStore, room_id: str) -> None:
    root = store.append(room_id, YOU, "m.room.message", text("root"))["event_id"]
    reply = store.append(room_id, YOU, "m.room.message", text("secret", rel_type="m.thread", event_id=root))
    store.append(room_id, YOU, "m.room.message", edit(reply["event_id"], "more secret"))
    removal = store.append(room_id, YOU, "m.room.redaction", redaction(reply["event_id"]))
    assert removal["event_id"] in {e["event_id"] for e in store.page(room_id, PageQuery(thread=root))[0]}
    _, shown = store.page(room_id, PageQuery(bundled=True, thread=root))[0]
    assert shown["content"] == {"m.relates_to": {"rel_type": "m.thread", "event_id": root}}
    assert "m.relations" not in shown["unsigned"]  # its edit no longer shows either
    with pytest.raises(InvalidEvent, match="was deleted"):
        store.append(room_id, YOU, "m.room.message", edit(reply["event_id"], "back"))


def test_redaction_refusals(store: RoomStore, room_id: str) -> None:
    theirs = store.append(room_id, YOU, "m.room.message", text("mine"))["event_id"]
    with pytest.raises(NotAllowed, match="that needs power level 50; redact your own events"):
        store.append(room_id, HELPER, "m.room.redaction", redaction(theirs))
    with pytest.raises(UnknownEvent, match=r"\$gone is not an event"):
        store.append(room_id, YOU, "m.room.redaction", redaction("$gone"))
    with pytest.raises(InvalidEvent, match='needs the "redacts" event id'):
        store.append(room_id, YOU, "m.room.redaction", {"redacts": 5})
    first = store.append(room_id, YOU, "m.room.redaction", redaction(theirs))
    with pytest.raises(InvalidEvent, match="itself a redaction"):
        store.append(room_id, YOU, "m.room.redaction", redaction(first["event_id"]))
    # The room admin may redact anyone's events; a second redaction keeps the first as the reason.
    helper_says = store.append(room_id, HELPER, "m.room.message", text("hi"))["event_id"]
    store.append(room_id, YOU, "m.room.redaction", redaction(helper_says))
    again = store.append(room_id, YOU, "m.room.redaction", redaction(theirs))
    event = store.event(room_id, theirs)
    assert event is not None
    assert event["unsigned"]["redacted_because"]["event_id"] == first["event_id"] != again["event_id"]


def test_a_database_from_before_redactions_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old" / "rooms.sqlite3"
    path.parent.mkdir()
    with sqlite3.connect(path) as old:
        old.execute(
            "CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE,"
            " room_id TEXT NOT NULL, sender TEXT NOT NULL, type TEXT NOT NULL, content TEXT NOT NULL,"
            " origin_server_ts INTEGER NOT NULL, rel_type TEXT, relates_to TEXT, thread_root TEXT)"
        )
    store = RoomStore(path)
    room_id = store.ensure_room("lobby").room_id
    message = store.append(room_id, YOU, "m.room.message", text("hi"))["event_id"]
    store.append(room_id, YOU, "m.room.redaction", redaction(message))
    assert "redacted_because" in (store.event(room_id, message) or {})["unsigned"]
    store.close()


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


async def test_follow_brings_stored_events_in_order_then_new_ones_with_a_tick_between(
    store: RoomStore,
) -> None:
    room = store.ensure_room("lobby")
    store.join(room.room_id, YOU, "You")
    start = store.latest_position()
    first = store.append(room.room_id, YOU, "m.room.message", text("one"))
    follower = store.follow(start)
    assert await anext(follower) == first
    assert await anext(follower) is None  # nothing new: the wait ends, and the follower may stop or go on
    second = store.append(room.room_id, YOU, "m.room.message", text("two"))
    assert await anext(follower) == second
    await follower.aclose()
