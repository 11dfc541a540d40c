"""Images, files, audio and video in a room are not passed to agents: they are ignored with a warning."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import agent_entry, running_rooms

HELPER = "@helper:miniroom.local"


@pytest.mark.parametrize("msgtype", ["m.image", "m.file", "m.audio", "m.video"])
async def test_a_non_text_message_is_ignored_with_a_warning(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture, msgtype: str
) -> None:
    provider.script(Reply(text="Text I can read."))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        with caplog.at_level(logging.WARNING, logger="miniroom.rooms.runtime"):
            upload = rooms.post("!thread_mode room", msgtype=msgtype, url="mxc://miniroom.local/upload")
            rooms.post("and this?")
            await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]) == "Text I can read."
        [request] = provider.requests
        assert "!thread_mode" not in str(request.body["messages"])
        assert not (rooms.data_dir / "tracking" / "thread_modes.json").exists()
    assert f"Ignoring a {msgtype} message from @you:miniroom.local in {rooms.lobby} ({upload})" in caplog.text
