"""Posting as other people in the embedded rooms API: `"as"` names a person, who joins the room on their
first post; agents' and service accounts cannot be posed as; a person edits and reacts only as themselves."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Page, expect
from starlette.applications import Starlette

from miniroom.config.config_yaml import RoomsConfig
from miniroom.server import create_app
from miniroom.server.project import Project
from miniroom.server.settings_files import ProjectFiles
from miniroom.transports.embedded import RoomStore
from tests.web.conftest import LiveServer
from tests.web.support import HELPER, YOU, client, lobby, post

MESSAGES = "/api/rooms/lobby/messages"
ALICE = "@alice:miniroom.local"
BOB = "@bob:miniroom.local"


@pytest.fixture
async def api(app: Starlette, store: RoomStore) -> AsyncIterator[httpx.AsyncClient]:
    lobby(store)
    async with client(app) as http:
        yield http


def refused(response: httpx.Response, status: int, message: str) -> None:
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


async def members(api: httpx.AsyncClient) -> dict[str, tuple[str, int]]:
    (room,) = (await api.get("/api/rooms")).json()["rooms"]
    return {m["user_id"]: (m["display_name"], m["power_level"]) for m in room["members"]}


async def test_people_post_as_themselves_and_join_the_room_with_their_names(api: httpx.AsyncClient) -> None:
    alice = await post(api, "Shall we plan the release?", **{"as": "alice"})
    bob = await post(api, "Yes, Friday.", **{"as": "bob", "display_name": "Bob Builder"})
    mine = await post(api, "And me, the local user.")
    assert [alice["sender"], bob["sender"], mine["sender"]] == [ALICE, BOB, YOU]
    assert await members(api) == {
        YOU: ("You", 100),
        HELPER: ("Helper", 0),
        ALICE: ("Alice", 0),
        BOB: ("Bob Builder", 0),
    }
    again = await post(api, "still Bob", **{"as": "bob"})
    assert again["sender"] == BOB
    assert (await members(api))[BOB] == ("Bob Builder", 0), "a later post without a name keeps the name"


async def test_a_person_is_mentioned_by_name(api: httpx.AsyncClient) -> None:
    await post(api, "hi", **{"as": "alice"})
    event = await post(api, "@Alice, look", **{"as": "bob"})
    assert event["content"]["m.mentions"] == {"user_ids": [ALICE]}


@pytest.mark.parametrize("name", ["Alice", "-alice", "al ice", "a" * 33, "", "@alice:miniroom.local"])
async def test_a_name_outside_the_rule_is_refused_saying_the_rule(api: httpx.AsyncClient, name: str) -> None:
    response = await api.post(MESSAGES, json={"body": "hi", "as": name})
    refused(response, 400, '"as" must be a person\'s short name: 1 to 32 lowercase letters, digits')
    assert response.json()["errcode"] == "M_BAD_JSON"


async def test_a_display_name_needs_a_person_and_a_short_text(api: httpx.AsyncClient) -> None:
    refused(await api.post(MESSAGES, json={"body": "hi", "display_name": "Al"}), 400, 'send it with "as"')
    long_name = {"body": "hi", "as": "al", "display_name": "x" * 65}
    refused(await api.post(MESSAGES, json=long_name), 400, '"display_name" must be a non-empty text')


async def test_an_agents_or_the_service_account_cannot_be_posed_as(api: httpx.AsyncClient) -> None:
    response = await api.post(MESSAGES, json={"body": "I am the helper", "as": "helper"})
    refused(response, 403, '"helper" is an account of these rooms that is not a person')
    assert response.json()["errcode"] == "M_FORBIDDEN"
    refused(
        await api.post(MESSAGES, json={"body": "hi", "as": "router"}),
        403,
        "\"router\" is the rooms' service account, so no one can post as it; pick a person's name",
    )
    assert HELPER not in [
        event["sender"] for event in (await api.get("/api/rooms/lobby/events")).json()["events"]
    ]


async def test_configured_agents_teams_and_bots_are_refused_before_they_join(
    tmp_path: Path, store: RoomStore
) -> None:
    lobby(store)
    config = RoomsConfig.model_validate(
        {
            "models": {"test": {"model": "scripted/test-model"}},
            "agents": {"planner": {"model": "test", "rooms": ["lobby"]}},
            "teams": {"crew": {"agents": ["planner"], "rooms": ["lobby"]}},
            "rooms": {"lobby": {}},
            "bot_accounts": ["@ci:miniroom.local"],
        }
    )
    folder = tmp_path / "project"
    folder.mkdir()
    project = Project(ProjectFiles(folder, folder / "config.yaml"), tmp_path / "data", {}, config)
    async with client(create_app(store, project=project)) as api:
        for name, what in [
            ("planner", "an agent's account"),
            ("crew", "a team's account"),
            ("ci", "in bot_accounts"),
        ]:
            refused(await api.post(MESSAGES, json={"body": "hi", "as": name}), 403, f'"{name}" is {what}')
        assert (await post(api, "a person still may", **{"as": "alice"}))["sender"] == ALICE


async def test_a_person_edits_and_reacts_only_as_themselves(api: httpx.AsyncClient) -> None:
    alice = await post(api, "Friday?", **{"as": "alice"})
    await post(api, "hello", **{"as": "bob"})
    edit = f"{MESSAGES}/{alice['event_id']}"
    refused(await api.put(edit, json={"body": "Monday!", "as": "bob"}), 403, f"was sent by {ALICE}")
    refused(await api.put(edit, json={"body": "Monday!"}), 403, f"was sent by {ALICE}")
    edited = await api.put(edit, json={"body": "Saturday?", "as": "alice"})
    assert edited.status_code == 201, edited.text
    assert edited.json()["event"]["sender"] == ALICE

    reaction = await api.post(f"{edit}/reactions", json={"key": "👍", "as": "bob"})
    assert reaction.status_code == 201, reaction.text
    reaction_id = reaction.json()["event_id"]
    assert reaction.json()["event"]["sender"] == BOB
    redact = f"/api/rooms/lobby/events/{reaction_id}/redact"
    refused(await api.post(redact, json={"as": "alice"}), 403, "cannot redact")
    taken_back = await api.post(redact, json={"as": "bob"})
    assert taken_back.status_code == 201, taken_back.text
    assert taken_back.json()["event"]["sender"] == BOB


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="session")
async def test_the_page_posts_as_the_person_chosen_in_posting_as(page: Page, live_server: LiveServer) -> None:
    lobby(live_server.store)
    await page.goto(live_server.url)
    await expect(page.locator("#me-name")).to_have_text("You")
    await expect(page.locator("#posting-as")).to_have_value("")

    await page.locator("#posting-as").select_option(label="Someone else…")
    await page.locator("#posting-as-name").fill("bob")
    await page.locator("#posting-as-name").press("Enter")
    await expect(page.locator("#me-name")).to_have_text("Bob")
    await expect(page.locator("#me-id")).to_have_text(BOB)
    await page.locator("#composer-input").fill("Hello from Bob")
    await page.locator("#composer-input").press("Enter")
    bobs = page.locator("#timeline .message", has_text="Hello from Bob")
    await expect(bobs.locator(".sender")).to_have_text("Bob")
    await expect(bobs).to_have_class(re.compile(r"\bmine\b"))
    answer = await page.request.get(f"{live_server.url}/api/rooms/lobby/events")
    [sent] = [event for event in (await answer.json())["events"] if event["type"] == "m.room.message"]
    assert sent["sender"] == BOB

    await page.reload()  # the choice is remembered
    await expect(page.locator("#posting-as")).to_have_value("bob")
    await expect(page.locator("#me-name")).to_have_text("Bob")
    await page.locator("#posting-as").select_option(label="You")
    await expect(page.locator("#me-id")).to_have_text(YOU)
    await expect(bobs).not_to_have_class(re.compile(r"\bmine\b"))
    await page.locator("#composer-input").fill("Back as myself")
    await page.locator("#composer-input").press("Enter")
    mine = page.locator("#timeline .message", has_text="Back as myself")
    await expect(mine.locator(".sender")).to_have_text("You")
    await expect(bobs.locator(".sender")).to_have_text("Bob")
    senders = [
        event["sender"] for event in live_server.store.events_after(0) if event["type"] == "m.room.message"
    ]
    assert senders == [BOB, YOU]


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="session")
async def test_a_name_typed_in_full_posts_under_that_name(page: Page, live_server: LiveServer) -> None:
    lobby(live_server.store)
    await page.goto(live_server.url)
    await expect(page.locator("#room-topic")).to_have_text(re.compile(r"· 2 members$"))
    await page.locator("#posting-as").select_option(label="Someone else…")
    await page.locator("#posting-as-name").fill("東京")  # no letter of a to z: no account name to derive
    await page.locator("#posting-as-name").press("Enter")
    await expect(page.locator("#posting-as-error")).to_contain_text(
        '"東京" has no letter a to z or digit 0 to 9; a name needs at least one'
    )
    await expect(page.locator("#posting-as-error")).to_contain_text("Type it in Latin letters, e.g. Tokyo")
    await page.locator("#posting-as-name").fill("  Jürgen   Builder ")
    await page.locator("#posting-as-name").press("Enter")
    await expect(page.locator("#me-name")).to_have_text("Jürgen Builder")
    await expect(page.locator("#me-id")).to_have_text("@jurgen-builder:miniroom.local")
    await page.locator("#composer-input").fill("Hello from Jürgen")
    await page.locator("#composer-input").press("Enter")
    sent = page.locator("#timeline .message", has_text="Hello from Jürgen")
    await expect(sent.locator(".sender")).to_have_text("Jürgen Builder")
    await expect(page.locator("#room-topic")).to_have_text(re.compile(r"· 3 members$"))  # the new person
    [room] = live_server.store.rooms()
    names = {member.user_id: member.display_name for member in live_server.store.members(room.room_id)}
    assert names["@jurgen-builder:miniroom.local"] == "Jürgen Builder"

    await page.reload()  # the name as typed is remembered with the choice
    await expect(page.locator("#posting-as option:checked")).to_have_text("Jürgen Builder")
    await expect(page.locator("#me-name")).to_have_text("Jürgen Builder")
