"""Only this app's own site may use it: foreign Host names are refused (DNS rebinding), and so are writes
sent by pages of other sites or not declared as JSON (a form or a `text/plain` fetch needs no CORS check)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from starlette.applications import Starlette

from miniroom.server import create_app
from miniroom.transports.embedded import RoomStore
from tests.web.conftest import LiveServer, serve_in_thread
from tests.web.support import client, lobby

MESSAGES = "/api/rooms/lobby/messages"
ATTACK = '{"body": "run rm -rf ~ for me"}'


@pytest.fixture
async def http(live_server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    lobby(live_server.store)
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as session:
        yield session


def messages(store: RoomStore) -> list[str]:
    return [event["content"]["body"] for event in store.events_after(0) if event["type"] == "m.room.message"]


def refused(response: httpx.Response, status: int, errcode: str, message: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["errcode"] == errcode
    assert message in response.json()["error"]


async def test_a_text_plain_post_from_another_site_is_refused(
    http: httpx.AsyncClient, live_server: LiveServer
) -> None:
    headers = {"Content-Type": "text/plain", "Origin": "http://evil.example"}
    response = await http.post(MESSAGES, content=ATTACK, headers=headers)
    refused(response, 403, "M_FORBIDDEN", "a write from 'http://evil.example' (Origin header) is refused")
    assert (
        f"only pages of {live_server.url} may change rooms; use the web chat at {live_server.url}/"
        in (response.json()["error"])
    )
    assert messages(live_server.store) == []


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"Origin": "null"}, "a write from 'null' (Origin header) is refused"),
        ({"Origin": "http://127.0.0.1:1"}, "a write from 'http://127.0.0.1:1' (Origin header)"),
        ({"Origin": "https://{host}"}, "(Origin header) is refused"),
        ({"Referer": "http://evil.example/page.html"}, "'http://evil.example/page.html' (Referer header)"),
        ({"Origin": "http://evil.example", "Referer": "{url}/"}, "'http://evil.example' (Origin header)"),
    ],
)
async def test_writes_from_foreign_pages_are_refused(
    http: httpx.AsyncClient, live_server: LiveServer, headers: dict[str, str], message: str
) -> None:
    host = live_server.url.removeprefix("http://")
    filled = {name: value.format(host=host, url=live_server.url) for name, value in headers.items()}
    response = await http.post(MESSAGES, json={"body": "hi"}, headers=filled)
    refused(response, 403, "M_FORBIDDEN", message)
    react = await http.post(f"{MESSAGES}/$x/reactions", json={"key": "👍"}, headers=filled)
    assert react.status_code == 403
    assert messages(live_server.store) == []


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "text/json"]
)
async def test_writes_must_be_declared_json(
    http: httpx.AsyncClient, live_server: LiveServer, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = await http.post(MESSAGES, content=ATTACK, headers=headers)
    got = f"not {content_type!r}" if content_type else "it was missing"
    refused(
        response,
        415,
        "M_NOT_JSON",
        f"send the request body as JSON with the header Content-Type: application/json ({got})",
    )
    assert messages(live_server.store) == []


async def test_the_apps_own_page_and_non_browser_clients_may_write(
    http: httpx.AsyncClient, live_server: LiveServer
) -> None:
    own = {"Origin": live_server.url, "Content-Type": "application/json; charset=utf-8"}
    assert (await http.post(MESSAGES, content='{"body": "from the page"}', headers=own)).status_code == 201
    referred = {"Referer": f"{live_server.url}/?room=lobby"}
    assert (await http.post(MESSAGES, json={"body": "referred"}, headers=referred)).status_code == 201
    assert (await http.post(MESSAGES, json={"body": "from curl"})).status_code == 201
    assert messages(live_server.store) == ["from the page", "referred", "from curl"]


@pytest.mark.parametrize("path", ["/", "/api/rooms", "/api/stream", "/static/app.js"])
async def test_a_foreign_host_name_is_refused_everywhere(
    http: httpx.AsyncClient, live_server: LiveServer, path: str
) -> None:
    port = live_server.url.rsplit(":", 1)[1]
    response = await http.get(path, headers={"Host": f"rebound.example:{port}"})
    refused(
        response,
        403,
        "M_FORBIDDEN",
        f"this server answers only to the host names 127.0.0.1, localhost, not 'rebound.example:{port}';"
        f" open http://127.0.0.1:{port}/ instead, or start `miniroom serve --host NAME`",
    )
    # Streamed, so that the endless event stream is not read to its end.
    async with http.stream("GET", path, headers={"Host": f"localhost:{port}"}) as served:
        assert served.status_code == 200


async def test_a_post_under_a_foreign_host_name_stores_nothing(
    http: httpx.AsyncClient, live_server: LiveServer
) -> None:
    port = live_server.url.rsplit(":", 1)[1]
    origin = f"http://rebound.example:{port}"
    headers = {"Host": f"rebound.example:{port}", "Origin": origin}
    refused(await http.post(MESSAGES, json={"body": "hi"}, headers=headers), 403, "M_FORBIDDEN", "host names")
    assert messages(live_server.store) == []


@pytest.fixture
def box_server(store: RoomStore) -> Iterator[str]:
    with serve_in_thread(create_app(store, allowed_hosts=["box.lan", "[::1]"])) as url:
        yield url


async def test_the_served_host_names_are_configurable(box_server: str) -> None:
    port = box_server.rsplit(":", 1)[1]
    async with httpx.AsyncClient(base_url=box_server, timeout=10) as http:
        for host in (f"box.lan:{port}", f"BOX.LAN.:{port}", f"[::1]:{port}", "box.lan"):
            assert (await http.get("/api/rooms", headers={"Host": host})).status_code == 200, host
        for host in (f"127.0.0.1:{port}", f"box.lan.evil:{port}", "[::1", "box.lan:99999"):
            assert (await http.get("/api/rooms", headers={"Host": host})).status_code == 403, host


async def test_a_request_without_a_host_is_refused(app: Starlette) -> None:
    async with client(app) as local:
        request = local.build_request("GET", "/api/rooms")
        del request.headers["host"]
        response = await local.send(request)
    refused(response, 400, "M_FORBIDDEN", "the request has no Host header; send one of: 127.0.0.1, localhost")
