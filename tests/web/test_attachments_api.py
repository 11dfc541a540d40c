"""Files in the web chat's API: attached as messages, kept with a size limit (a clear error past it), read
back by media id, images shown and everything else only downloaded."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette

from miniroom.transports.embedded import RoomStore
from miniroom.transports.embedded.media import MAX_MEDIA_BYTES
from tests.web.support import YOU, client, lobby, post

FILE = {"Content-Type": "application/octet-stream"}
PNG_HEAD = b"\x89PNG\r\n\x1a\n" + b"\0" * 24


@pytest.fixture
async def api(app: Starlette, store: RoomStore) -> AsyncIterator[httpx.AsyncClient]:
    lobby(store)
    async with client(app) as http:
        yield http


async def test_an_image_is_posted_as_an_m_image_and_read_back(api: httpx.AsyncClient) -> None:
    answer = await api.post(
        "/api/rooms/lobby/attachments?filename=shot.png&mimetype=image/png", content=PNG_HEAD, headers=FILE
    )
    assert answer.status_code == 201, answer.text
    event = answer.json()["event"]
    content = event["content"]
    assert (event["sender"], content["msgtype"], content["body"], content["filename"]) == (
        YOU,
        "m.image",
        "shot.png",
        "shot.png",
    )
    assert content["info"] == {"mimetype": "image/png", "size": len(PNG_HEAD)}
    media_id = content["url"].removeprefix("mxc://miniroom.local/")
    read = await api.get(f"/api/media/{media_id}")
    assert (read.status_code, read.content, read.headers["content-type"]) == (200, PNG_HEAD, "image/png")
    assert read.headers["content-disposition"] == "inline"


async def test_a_file_in_a_thread_is_only_ever_downloaded(api: httpx.AsyncClient) -> None:
    root = await post(api, "the logs?")
    answer = await api.post(
        f"/api/rooms/lobby/attachments?filename=run%20log.html&mimetype=text/html&thread_root={root['event_id']}",
        content=b"<script>alert(1)</script>",
        headers=FILE,
    )
    content = answer.json()["event"]["content"]
    assert content["msgtype"] == "m.file"
    assert content["m.relates_to"]["event_id"] == root["event_id"]
    read = await api.get(f"/api/media/{content['url'].rsplit('/', 1)[1]}")
    assert read.headers["content-type"] == "application/octet-stream"
    assert read.headers["content-disposition"] == "attachment; filename*=UTF-8''run%20log.html"
    assert "sandbox" in read.headers["content-security-policy"]


async def test_a_file_over_the_limit_is_refused_with_the_limit_and_nothing_is_kept(
    api: httpx.AsyncClient, store: RoomStore
) -> None:
    before = store.latest_position()
    answer = await api.post(
        "/api/rooms/lobby/attachments?filename=huge.bin", content=b"\0" * (MAX_MEDIA_BYTES + 1), headers=FILE
    )
    assert answer.status_code == 413
    assert answer.json() == {
        "errcode": "M_TOO_LARGE",
        "error": "the file is 20,971,521 bytes; files up to 20,971,520 bytes (20 MB) can be sent. "
        "Send a smaller file, or a link to it",
    }
    assert store.latest_position() == before


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("", '"filename" must name the file'),
        ("?filename=a.txt&colour=red", "unknown query parameter"),
        ("?filename=a.txt&thread_root=nope", '"thread_root" must be an event id'),
        ("?filename=a.txt&mimetype=text", '"mimetype" must be a media type such as image/png'),
    ],
)
async def test_a_bad_attachment_request_says_what_to_fix(
    api: httpx.AsyncClient, query: str, problem: str
) -> None:
    answer = await api.post(f"/api/rooms/lobby/attachments{query}", content=b"x", headers=FILE)
    assert answer.status_code == 400
    assert problem in answer.json()["error"]


async def test_an_empty_file_and_an_unknown_media_id_are_refused(api: httpx.AsyncClient) -> None:
    empty = await api.post("/api/rooms/lobby/attachments?filename=a.txt", content=b"", headers=FILE)
    assert empty.status_code == 400
    assert "the file is empty" in empty.json()["error"]
    unknown = await api.get("/api/media/nothing-here")
    assert unknown.status_code == 404
    assert "no file mxc://miniroom.local/nothing-here" in unknown.json()["error"]


async def test_a_deleted_file_message_takes_its_bytes_with_it(api: httpx.AsyncClient) -> None:
    answer = await api.post("/api/rooms/lobby/attachments?filename=keys.txt", content=b"secret", headers=FILE)
    event = answer.json()["event"]
    media_id = event["content"]["url"].rsplit("/", 1)[1]
    assert (await api.get(f"/api/media/{media_id}")).status_code == 200
    redacted = await api.post(f"/api/rooms/lobby/events/{event['event_id']}/redact", json={})
    assert redacted.status_code == 201
    assert (await api.get(f"/api/media/{media_id}")).status_code == 404
