"""Every refused input gets a JSON error with a status code and a message saying what to fix."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette

from miniroom.transports.embedded import RoomStore
from tests.web.support import HELPER, client, lobby

MESSAGES = "/api/rooms/lobby/messages"


@pytest.fixture
async def api(app: Starlette, store: RoomStore) -> AsyncIterator[httpx.AsyncClient]:
    lobby(store)
    async with client(app) as http:
        yield http


def refused(response: httpx.Response, status: int, errcode: str, message: str) -> None:
    assert response.status_code == status, response.text
    data = response.json()
    assert data["errcode"] == errcode
    assert message in data["error"]


@pytest.mark.parametrize(
    ("payload", "status", "errcode", "message"),
    [
        ({}, 400, "M_BAD_JSON", 'missing "body": send {"body": "your message"}'),
        ({"body": 5}, 400, "M_BAD_JSON", '"body" must be a string, not int'),
        ({"body": "  "}, 400, "M_BAD_JSON", '"body" is empty'),
        ({"body": "é" * 32_769}, 413, "M_TOO_LARGE", '"body" is 65,538 bytes; the limit is 65,536 (64 KiB)'),
        (
            {"body": "hi", "colour": "red"},
            400,
            "M_BAD_JSON",
            "unknown field 'colour'; allowed: body, reply_to",
        ),
        ({"body": "hi", "thread_root": "root"}, 400, "M_BAD_JSON", '"thread_root" must be an event id'),
        (
            {"body": "hi", "thread_root": "$missing"},
            404,
            "M_NOT_FOUND",
            "thread root $missing is not an event",
        ),
        ({"body": "hi", "reply_to": "$missing"}, 404, "M_NOT_FOUND", "$missing is not an event of room"),
        (
            {"body": "hi", "txn_id": 7},
            400,
            "M_BAD_JSON",
            '"txn_id" must be a non-empty text of at most 255 characters, unique per message',
        ),
        ({"body": "hi", "txn_id": " "}, 400, "M_BAD_JSON", '"txn_id" must be a non-empty text'),
        ({"body": "hi", "txn_id": "x" * 256}, 400, "M_BAD_JSON", '"txn_id" must be a non-empty text'),
    ],
)
async def test_bad_messages(
    api: httpx.AsyncClient, payload: dict[str, object], status: int, errcode: str, message: str
) -> None:
    refused(await api.post(MESSAGES, json=payload), status, errcode, message)


async def test_a_body_that_is_not_a_json_object(api: httpx.AsyncClient) -> None:
    refused(await api.post(MESSAGES, content=b"hello"), 400, "M_NOT_JSON", "not JSON")
    refused(await api.post(MESSAGES, json=["hello"]), 400, "M_BAD_JSON", "must be a JSON object")


async def test_unknown_room_and_endpoint(api: httpx.AsyncClient) -> None:
    response = await api.post("/api/rooms/attic/messages", json={"body": "hi"})
    refused(response, 404, "M_NOT_FOUND", 'no room "attic"; use a room id or key from GET /api/rooms')
    refused(await api.get("/api/nothing"), 404, "M_UNRECOGNIZED", "no such endpoint: GET /api/nothing")
    refused(await api.delete(MESSAGES), 405, "M_UNRECOGNIZED", "DELETE is not allowed")


async def test_editing_someone_elses_or_an_unknown_message(api: httpx.AsyncClient, store: RoomStore) -> None:
    theirs = store.append(
        store.room("lobby").room_id, HELPER, "m.room.message", {"msgtype": "m.text", "body": "x"}
    )
    response = await api.put(f"{MESSAGES}/{theirs['event_id']}", json={"body": "mine now"})
    refused(response, 403, "M_FORBIDDEN", f"was sent by {HELPER}; edit your own messages")
    refused(
        await api.put(f"{MESSAGES}/$gone", json={"body": "x"}), 404, "M_NOT_FOUND", "$gone is not an event"
    )


async def test_bad_reactions(api: httpx.AsyncClient) -> None:
    target = (await api.post(MESSAGES, json={"body": "react to me"})).json()["event_id"]
    path = f"{MESSAGES}/{target}/reactions"
    refused(await api.post(path, json={"key": ""}), 400, "M_BAD_JSON", '"key" must be a short non-empty text')
    assert (await api.post(path, json={"key": "👍"})).status_code == 201
    refused(await api.post(path, json={"key": "👍"}), 400, "M_INVALID_PARAM", "already reacted 👍")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"limit": "0"}, 'query parameter "limit" must be between 1 and 500, not 0'),
        ({"after": "soon"}, "query parameter \"after\" must be a whole number, not 'soon'"),
        ({"bundled": "maybe"}, "query parameter \"bundled\" must be true or false, not 'maybe'"),
    ],
)
async def test_bad_page_queries(api: httpx.AsyncClient, query: dict[str, str], message: str) -> None:
    refused(await api.get("/api/rooms/lobby/events", params=query), 400, "M_BAD_JSON", message)


async def test_unknown_thread_filter(api: httpx.AsyncClient) -> None:
    response = await api.get("/api/rooms/lobby/events", params={"thread": "$nope"})
    refused(response, 404, "M_NOT_FOUND", "$nope is not an event")
