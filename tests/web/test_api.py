"""The embedded rooms API: rooms, timeline pages, posting with mentions and threads, edits and reactions."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette

from miniroom.rooms.content import message_content
from miniroom.transports.embedded import RoomStore
from tests.web.support import HELPER, YOU, client, lobby, post


@pytest.fixture
async def api(app: Starlette, store: RoomStore) -> AsyncIterator[httpx.AsyncClient]:
    lobby(store)
    async with client(app) as http:
        yield http


async def test_rooms_list_members_and_power_levels(api: httpx.AsyncClient, store: RoomStore) -> None:
    data = (await api.get("/api/rooms")).json()
    assert data["user"] == {"user_id": YOU, "display_name": "You"}
    (room,) = data["rooms"]
    assert (room["key"], room["name"], room["alias"]) == ("lobby", "Lobby", "#lobby:miniroom.local")
    assert room["members"] == [
        {"user_id": YOU, "display_name": "You", "power_level": 100},
        {"user_id": HELPER, "display_name": "Helper", "power_level": 0},
    ]
    assert data["latest"] == store.latest_position()


async def test_a_message_mentions_members_named_in_its_text(api: httpx.AsyncClient) -> None:
    event = await post(api, "@helper and @Helper, not @nobody or me@helper <b>")
    assert event["sender"] == YOU
    assert event["type"] == "m.room.message"
    content = event["content"]
    assert content["m.mentions"] == {"user_ids": [HELPER]}
    assert content["body"] == "@helper and @Helper, not @nobody or me@helper <b>"
    assert content["formatted_body"] == (
        '<a href="https://matrix.to/#/@helper:miniroom.local">@helper</a> and '
        '<a href="https://matrix.to/#/@helper:miniroom.local">@Helper</a>, not @nobody or me@helper &lt;b&gt;'
    )


async def test_a_message_mentioning_nobody_has_empty_mentions_like_an_agents_reply(
    api: httpx.AsyncClient,
) -> None:
    event = await post(api, "hello, no one in particular")
    agent_reply = message_content("hello, no one in particular")
    assert event["content"]["m.mentions"] == agent_reply["m.mentions"] == {}
    edited = await api.put(f"/api/rooms/lobby/messages/{event['event_id']}", json={"body": "hello again"})
    edit = edited.json()["event"]["content"]
    assert edit["m.mentions"] == edit["m.new_content"]["m.mentions"] == {}


async def test_thread_messages_and_replies_join_the_thread(api: httpx.AsyncClient) -> None:
    root = await post(api, "root")
    first = await post(api, "first", thread_root=root["event_id"])
    assert first["content"]["m.relates_to"] == {
        "rel_type": "m.thread",
        "event_id": root["event_id"],
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": root["event_id"]},
    }
    reply = await post(api, "answer to first", reply_to=first["event_id"])
    assert reply["content"]["m.relates_to"] == {
        "rel_type": "m.thread",
        "event_id": root["event_id"],
        "is_falling_back": False,
        "m.in_reply_to": {"event_id": first["event_id"]},
    }
    plain = await post(api, "plain reply", reply_to=root["event_id"])
    assert plain["content"]["m.relates_to"] == {"m.in_reply_to": {"event_id": root["event_id"]}}
    await post(api, "room level")
    page = (await api.get("/api/rooms/lobby/events", params={"thread": root["event_id"]})).json()
    assert [event["content"]["body"] for event in page["events"]] == ["root", "first", "answer to first"]


async def test_edits_and_reactions_are_bundled_on_request(api: httpx.AsyncClient) -> None:
    message = await post(api, "helo")
    path = f"/api/rooms/lobby/messages/{message['event_id']}"
    edited = await api.put(path, json={"body": "hello @helper"})
    assert edited.status_code == 201
    edit = edited.json()["event"]["content"]
    assert edit["m.relates_to"] == {"rel_type": "m.replace", "event_id": message["event_id"]}
    assert edit["m.new_content"]["body"] == "hello @helper"
    assert edit["m.mentions"] == {"user_ids": [HELPER]}
    reacted = await api.post(f"{path}/reactions", json={"key": "👍"})
    assert reacted.json()["event"]["content"]["m.relates_to"]["key"] == "👍"

    raw = (await api.get("/api/rooms/lobby/events")).json()["events"]
    assert [event["type"] for event in raw] == ["m.room.message", "m.room.message", "m.reaction"]
    (shown,) = (await api.get("/api/rooms/lobby/events", params={"bundled": "true"})).json()["events"]
    relations = shown["unsigned"]["m.relations"]
    assert relations["m.replace"]["content"]["m.new_content"]["body"] == "hello @helper"
    (reaction,) = relations["m.annotation"]["chunk"]
    assert reaction == {
        "type": "m.reaction",
        "key": "👍",
        "count": 1,
        "io.miniroom.events": [{"event_id": reacted.json()["event_id"], "sender": YOU}],
    }


async def test_pages_follow_stream_positions(api: httpx.AsyncClient) -> None:
    events = [await post(api, str(n)) for n in range(4)]
    second = events[1]["unsigned"]["stream_position"]
    after = (await api.get("/api/rooms/lobby/events", params={"after": second, "limit": 1})).json()
    assert [event["content"]["body"] for event in after["events"]] == ["2"]
    before = (await api.get("/api/rooms/lobby/events", params={"before": second})).json()
    assert [event["content"]["body"] for event in before["events"]] == ["0"]
    assert after["latest"] == events[-1]["unsigned"]["stream_position"]


async def test_a_room_is_found_by_id_as_well_as_key(api: httpx.AsyncClient, store: RoomStore) -> None:
    room_id = store.room("lobby").room_id
    response = await api.post(f"/api/rooms/{room_id}/messages", json={"body": "by id"})
    assert response.status_code == 201
    assert response.json()["event"]["room_id"] == room_id


async def test_a_post_repeated_with_its_txn_id_returns_the_first_event(
    api: httpx.AsyncClient, store: RoomStore
) -> None:
    first = await post(api, "only once", txn_id="page-1")
    again = await post(api, "only once", txn_id="page-1")
    other = await post(api, "only once", txn_id="page-2")
    assert again == first
    assert other["event_id"] != first["event_id"]
    bodies = [event["content"]["body"] for event in store.events_after(0)]
    assert bodies == ["only once", "only once"]


async def test_redacting_my_reaction_removes_it(api: httpx.AsyncClient) -> None:
    message = await post(api, "ship it?")
    path = f"/api/rooms/lobby/messages/{message['event_id']}"
    reaction = (await api.post(f"{path}/reactions", json={"key": "👍"})).json()["event_id"]
    redacted = await api.post(f"/api/rooms/lobby/events/{reaction}/redact", json={})
    assert redacted.status_code == 201, redacted.text
    event = redacted.json()["event"]
    assert (event["type"], event["sender"], event["content"]) == (
        "m.room.redaction",
        YOU,
        {"redacts": reaction},
    )
    (shown,) = (await api.get("/api/rooms/lobby/events", params={"bundled": "true"})).json()["events"]
    assert "m.relations" not in shown["unsigned"]
    # Reacting again works, and a reason may be given when redacting.
    again = (await api.post(f"{path}/reactions", json={"key": "👍"})).json()["event_id"]
    with_reason = await api.post(
        f"/api/rooms/lobby/events/{again}/redact", json={"reason": "changed my mind"}
    )
    assert with_reason.json()["event"]["content"] == {"redacts": again, "reason": "changed my mind"}
