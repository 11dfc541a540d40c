"""Who is served: loopback clients without a token; with MINIROOM_API_TOKEN, holders of the token."""

from __future__ import annotations

import pytest

from miniroom.server import create_app
from miniroom.transports.embedded import RoomStore
from tests.web.support import client

TOKEN = "s3cret-token"


async def test_without_a_token_only_loopback_clients_are_served(store: RoomStore) -> None:
    app = create_app(store)
    async with client(app, host="192.168.1.20") as remote:
        response = await remote.get("/api/rooms")
        assert response.status_code == 403
        assert "only local clients are served; set MINIROOM_API_TOKEN" in response.json()["error"]
        assert (await remote.get("/")).status_code == 403
    async with client(app, host="::1") as local:
        assert (await local.get("/api/rooms")).status_code == 200


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "no API token; send the header Authorization: Bearer <MINIROOM_API_TOKEN>"),
        ({"Authorization": "Bearer wrong"}, "wrong API token; send the header"),
        ({"Authorization": f"Basic {TOKEN}"}, "no API token"),
    ],
)
async def test_the_api_needs_the_token(store: RoomStore, headers: dict[str, str], message: str) -> None:
    async with client(create_app(store, api_token=TOKEN), host="10.0.0.5") as remote:
        response = await remote.get("/api/rooms", headers=headers)
    assert response.status_code == 401
    assert response.json()["errcode"] == "M_UNKNOWN_TOKEN"
    assert message in response.json()["error"]


async def test_the_token_opens_the_api_to_any_host(store: RoomStore) -> None:
    async with client(create_app(store, api_token=TOKEN), host="10.0.0.5") as remote:
        assert (
            await remote.get("/api/rooms", headers={"Authorization": f"Bearer {TOKEN}"})
        ).status_code == 200
        # A query token is only for EventSource, which cannot send headers.
        assert (await remote.get(f"/api/rooms?access_token={TOKEN}")).status_code == 401
        assert (await remote.get("/")).status_code == 200


async def test_the_token_comes_from_the_environment(
    store: RoomStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MINIROOM_API_TOKEN", TOKEN)
    async with client(create_app(store)) as local:
        assert (await local.get("/api/rooms")).status_code == 401
        assert (
            await local.get("/api/rooms", headers={"Authorization": f"Bearer {TOKEN}"})
        ).status_code == 200


async def test_the_openai_door_is_refused_alike_in_openais_error_shape(store: RoomStore) -> None:
    async with client(create_app(store), host="192.168.1.20") as remote:
        response = await remote.get("/v1/models")
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert "only local clients are served; set MINIROOM_API_TOKEN" in error["message"]
    async with client(create_app(store, api_token=TOKEN), host="10.0.0.5") as remote:
        response = await remote.get("/v1/models", headers={"Authorization": "Bearer wrong"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"
    assert "wrong API token" in response.json()["error"]["message"]
