"""Every refused input gets a JSON error with a status code and a message saying what to fix."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable

import httpx
import pytest
from starlette.applications import Starlette

from miniroom.server.inputs import MAX_REQUEST_BYTES
from miniroom.transports.embedded import RoomStore
from tests.web.conftest import LiveServer
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
        ({"body": 5}, 400, "M_BAD_JSON", '"body" must be a string, not a number'),
        ({"body": "  "}, 400, "M_BAD_JSON", '"body" is empty'),
        ({"body": "é" * 32_769}, 413, "M_TOO_LARGE", '"body" is 65,538 bytes; the limit is 65,536 (64 KiB)'),
        (
            {"body": "hi", "colour": "red"},
            400,
            "M_BAD_JSON",
            "unknown field 'colour'; allowed: as, body, display_name, reply_to",
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
    json_type = {"Content-Type": "application/json"}
    refused(await api.post(MESSAGES, content=b"hello", headers=json_type), 400, "M_NOT_JSON", "not JSON")
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


def json_post(api: httpx.AsyncClient, raw: bytes | str, path: str = MESSAGES) -> Awaitable[httpx.Response]:
    return api.post(path, content=raw, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"body": "a\\ud800b"}', '"body" holds a lone surrogate (half of a UTF-16 pair, such as \\ud800)'),
        ('{"body": "hi", "thread_root": "$\\udfff"}', '"thread_root" holds a lone surrogate'),
        (b'{"body": "caf\xe9"}', "the request body is not UTF-8 text (byte 13); send JSON in UTF-8"),
        ('{"body": "hi"}'.encode("utf-16"), "not UTF-8 text"),
        (b'\xef\xbb\xbf{"body": "bom"}', "not JSON (Unexpected UTF-8 BOM"),
        ('{"body": 1' + "0" * 5000 + "}", "not JSON (a number in it has more digits than Python reads)"),
        ("[" * 100_000 + "]" * 100_000, "not JSON (it is nested too deeply)"),
        ('{"body": ' + "[" * 10_000 + "]" * 10_000 + "}", "not JSON (it is nested too deeply)"),
        ("", "not JSON (Expecting value: line 1 column 1"),
        ('"just a string"', "must be a JSON object"),
        ("null", "must be a JSON object"),
        ('{"body": 1e999}', '"body" must be a string, not a number'),
        ('{"body": NaN}', '"body" must be a string, not a number'),
        ('{"body": null, "body": ["x"]}', '"body" must be a string, not an array'),
        ('{"body": true}', '"body" must be a string, not a boolean'),
        (
            '{"body": "hi", "reply_to": {"event_id": "$x"}}',
            '"reply_to" must be an event id like "$abc…", not',
        ),
        ('{"body": "hi", "thread_root": "$' + "x" * 300 + '"}', '"thread_root" must be an event id'),
    ],
)
async def test_malformed_json_is_a_clear_400(api: httpx.AsyncClient, raw: bytes | str, message: str) -> None:
    response = await json_post(api, raw)
    assert response.status_code == 400, response.text
    assert response.json()["errcode"] in ("M_NOT_JSON", "M_BAD_JSON")
    assert message in response.json()["error"]


async def test_unknown_fields_are_named_briefly(api: httpx.AsyncClient) -> None:
    long_key = await json_post(api, json.dumps({"body": "hi", "k" * 100_000: 1}))
    refused(long_key, 400, "M_BAD_JSON", "unknown field 'kkkk")
    assert len(long_key.json()["error"]) < 300
    many = await json_post(api, json.dumps({"body": "hi", **{f"f{n:02}": n for n in range(12)}}))
    refused(many, 400, "M_BAD_JSON", "unknown field 'f00', 'f01', 'f02', 'f03', 'f04' and 7 more; allowed:")
    surrogate_key = await json_post(api, '{"body": "hi", "\\ud800": 1}')
    refused(surrogate_key, 400, "M_BAD_JSON", "unknown field '\\ud800'")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"after": "9" * 20}, "must be between 0 and 9223372036854775807, not '99999999999999999999'"),
        ({"after": "9" * 5000}, 'query parameter "after" must be between 0 and'),
        ({"before": "²"}, "query parameter \"before\" must be a whole number, not '²'"),
        ({"before": "1e3"}, "must be a whole number, not '1e3'"),
        ({"limit": "-1"}, "must be a whole number, not '-1'"),
        ({"limit": " 5"}, "must be a whole number, not ' 5'"),
        ({"limit": "501"}, 'query parameter "limit" must be between 1 and 500, not 501'),
        ({"bundled": "x" * 1000}, "must be true or false, not 'xxx"),
    ],
)
async def test_odd_query_parameters(api: httpx.AsyncClient, query: dict[str, str], message: str) -> None:
    response = await api.get("/api/rooms/lobby/events", params=query)
    refused(response, 400, "M_BAD_JSON", message)
    assert len(response.json()["error"]) < 300


@pytest.mark.parametrize("last_id", ["²", "9" * 30, "-1", "1.5", ""])
async def test_odd_last_event_ids(api: httpx.AsyncClient, last_id: str) -> None:
    # Header values travel as bytes; HTTP reads them as Latin-1.
    response = await api.get("/api/stream", headers={b"Last-Event-ID": last_id.encode("latin-1")})
    refused(response, 400, "M_BAD_JSON", "Last-Event-ID (a stream position) must be")


async def test_unknown_rooms_and_events_with_long_or_odd_ids(api: httpx.AsyncClient) -> None:
    long_room = await api.get(f"/api/rooms/{'r' * 10_000}/events")
    refused(long_room, 404, "M_NOT_FOUND", "no room 'rrrr")
    assert len(long_room.json()["error"]) < 300
    refused(await api.get("/api/stream", params={"room": "%00"}), 404, "M_NOT_FOUND", 'no room "%00"')
    long_event = await api.put(f"{MESSAGES}/${'e' * 10_000}", json={"body": "x"})
    refused(long_event, 404, "M_NOT_FOUND", "'$eeee")
    assert len(long_event.json()["error"]) < 300
    thread = await api.get("/api/rooms/lobby/events", params={"thread": "x" * 10_000})
    refused(thread, 404, "M_NOT_FOUND", "is not an event of room")


async def test_the_size_limit_holds_before_the_body_is_read(api: httpx.AsyncClient) -> None:
    read = 0

    async def gigabyte() -> AsyncIterator[bytes]:
        nonlocal read
        chunk = b" " * 65_536
        for _ in range(16_384):  # 1 GiB, sent in 64 KiB chunks
            read += len(chunk)
            yield chunk

    headers = {"Content-Type": "application/json"}
    streamed = await api.post(MESSAGES, content=gigabyte(), headers=headers)
    refused(
        streamed,
        413,
        "M_TOO_LARGE",
        "the request is over the limit of 524,288 bytes (512 KiB). Send less text",
    )
    assert read <= MAX_REQUEST_BYTES + 65_536, f"{read:,} bytes were read before the refusal"
    read = 0
    declared = await api.post(MESSAGES, content=gigabyte(), headers={**headers, "Content-Length": str(2**30)})
    refused(
        declared,
        413,
        "M_TOO_LARGE",
        "the request is 1,073,741,824 bytes; the limit is 524,288 bytes (512 KiB)",
    )
    assert read == 0
    odd_length = {b"Content-Type": b"application/json", b"Content-Length": "²".encode("latin-1")}
    bad_length = await api.post(MESSAGES, content=b"{}", headers=odd_length)
    refused(bad_length, 400, "M_BAD_JSON", "the Content-Length header must be a whole number, not '²'")


async def test_a_gigabyte_upload_over_http_is_cut_off_at_the_limit(live_server: LiveServer) -> None:
    """Real HTTP: a declared 1 GiB is refused before its body is sent, a chunked one soon past the limit."""
    lobby(live_server.store)
    port = int(live_server.url.rsplit(":", 1)[1])
    head = (
        f"POST {MESSAGES} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head + f"Content-Length: {2**30}\r\n\r\n".encode())
    assert (await reader.readline()).startswith(b"HTTP/1.1 413 ")
    writer.transport.abort()

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head + b"Transfer-Encoding: chunked\r\n\r\n")
    status = asyncio.ensure_future(reader.readline())
    chunk = b"10000\r\n" + b" " * 65_536 + b"\r\n"
    sent = 0
    while not status.done() and sent < 2**30:
        writer.write(chunk)
        sent += 65_536
        drained = asyncio.ensure_future(writer.drain())
        await asyncio.wait({drained, status}, return_when=asyncio.FIRST_COMPLETED)
        if not drained.done():
            drained.cancel()
    assert (await status).startswith(b"HTTP/1.1 413 ")
    # What was sent past the limit sits in socket buffers; the server stopped reading at the limit.
    assert sent < 64 * 2**20, f"{sent:,} bytes were taken before the refusal"
    writer.transport.abort()  # close() would wait to send what the server no longer reads


async def test_bad_redactions(api: httpx.AsyncClient, store: RoomStore) -> None:
    target = (await api.post(MESSAGES, json={"body": "delete me"})).json()["event_id"]
    redact = f"/api/rooms/lobby/events/{target}/redact"
    refused(
        await api.post(redact, json={"reason": 5}), 400, "M_BAD_JSON", '"reason" must be a text of at most'
    )
    refused(
        await api.post(redact, json={"why": "x"}),
        400,
        "M_BAD_JSON",
        "unknown field 'why'; allowed: as, display_name, reason",
    )
    gone = "/api/rooms/lobby/events/$gone/redact"
    refused(await api.post(gone, json={}), 404, "M_NOT_FOUND", "$gone is not an event of room")
    assert (await api.post(redact, json={})).status_code == 201
    edit = await api.put(f"{MESSAGES}/{target}", json={"body": "back"})
    refused(
        edit, 400, "M_BAD_JSON", "that message was deleted (redacted), so it cannot be edited; send a new one"
    )
