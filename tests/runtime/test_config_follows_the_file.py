"""`miniroom serve` follows config.yaml as edited by hand: an added agent answers, a room's new display name
shows, and a file that cannot be used is logged while the served config stays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.runtime.serve_process import ServeProcess
from tests.runtime.support import agent_entry, write_config

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

SCOUT = "@scout:miniroom.local"


@pytest.fixture
def serve(tmp_path: Path, provider: ScriptedProvider) -> Iterator[ServeProcess]:
    config = write_config(tmp_path, provider, {"helper": agent_entry("Helper")}, rooms={"lobby": {}})
    served = ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log")
    served.start()
    try:
        yield served
    finally:
        served.kill()


def room_name(serve: ServeProcess) -> str:
    rooms = httpx.get(f"{serve.base}api/rooms").json()["rooms"]
    return str(next(room["name"] for room in rooms if room["key"] == "lobby"))


def test_a_hand_edit_of_config_yaml_applies_while_serving(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    assert room_name(serve) == "lobby"
    agents = {"helper": agent_entry("Helper"), "scout": agent_entry("Scout")}
    write_config(tmp_path, provider, agents, rooms={"lobby": {"display_name": "The Lobby"}})
    serve.wait_for(lambda: room_name(serve) == "The Lobby", "the room's new name")
    serve.wait_for(
        lambda: "config.yaml changed: applied now (agents added: scout)" in serve.output(), "the log"
    )
    provider.script(Reply(text="Scout here."))
    serve.post("@scout are you there?")
    [reply] = serve.wait_for(lambda: serve.replies_by(SCOUT), "the scout's answer")
    serve.wait_for(lambda: serve.shown(reply).get("body") == "Scout here.", "the whole answer")


def test_a_hand_edit_that_cannot_be_used_is_logged_and_the_served_config_stays(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(config.read_text() + "bogus_section: 1\n")
    serve.wait_for(
        lambda: "changed but cannot be used; still serving the previous version" in serve.output(), "the log"
    )
    assert "bogus_section: unknown key" in serve.output()
    provider.script(Reply(text="Still here."))
    serve.post("@helper still there?")
    serve.wait_for(lambda: serve.replies_by("@helper:miniroom.local"), "the helper's answer")
