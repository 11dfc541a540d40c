"""Files, images, audio and video people send in a room reach the agent: files saved in its working folder,
images to models that take them, audio and video named as not read."""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from miniroom.rooms.attachments import conversation_folder
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.harness import scripted_model
from tests.runtime.media_support import PNG, image_blocks, image_model, takes_images
from tests.runtime.support import agent_entry, prompt_of, running_rooms

HELPER = "@helper:miniroom.local"
CSV = b"city,visits\nOslo,3\nLima,5\n"


async def test_a_csv_file_is_saved_in_the_working_folder_and_the_agent_reads_it_from_there(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        media = rooms.store.put_media("@you:miniroom.local", "visits.csv", "text/csv", CSV)
        info = {"mimetype": "text/csv", "size": len(CSV)}
        posted = rooms.post("visits.csv", msgtype="m.file", url=media.url, info=info)
        folder = conversation_folder(rooms.lobby, posted)  # the reply's thread, rooted at the file
        provider.script(
            Reply(tool_calls=[("read", {"path": f"{folder}/visits.csv"})]), Reply(text="Lima leads with 5.")
        )
        await rooms.settle()
        saved = rooms.data_dir / "workspaces" / "helper" / folder / "visits.csv"
        assert saved.read_bytes() == CSV
        [reply] = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]).endswith("Lima leads with 5.")
    first, second = provider.requests
    assert prompt_of(first) == (
        f"You: [file: visits.csv] (saved in your working folder as {folder}/visits.csv, 26 bytes)"
    )
    assert "Lima,5" in json.dumps(second.body["messages"][-1])


@pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions"])
async def test_an_image_with_its_caption_reaches_a_model_that_takes_images(
    tmp_path: Path, provider: ScriptedProvider, api: str
) -> None:
    provider.script(Reply(text="The build failed at step 3."))
    takes_images(tmp_path / "mini")
    agents = {"helper": {**agent_entry("Helper"), "model": "seeing"}}
    models = {"seeing": image_model(provider, api), "test": scripted_model(provider)}
    async with running_rooms(tmp_path, provider, agents, models=models) as rooms:
        media = rooms.store.put_media("@you:miniroom.local", "error.png", "image/png", PNG)
        content: dict[str, Any] = {
            "filename": "error.png",
            "url": media.url,
            "info": {"mimetype": "image/png"},
        }
        posted = rooms.post("what went wrong?", msgtype="m.image", **content)
        await rooms.settle()
    [request] = provider.requests
    assert image_blocks(request.body) == [base64.b64encode(PNG).decode()]
    folder = conversation_folder(rooms.lobby, posted)
    assert f"[image: error.png] what went wrong? (saved in your working folder as {folder}/error.png" in str(
        request.body["messages"]
    )


async def test_an_image_is_described_by_name_to_a_model_that_does_not_take_images(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="I cannot see images."))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        media = rooms.store.put_media("@you:miniroom.local", "error.png", "image/png", PNG)
        rooms.post("error.png", msgtype="m.image", url=media.url)
        await rooms.settle()
    [request] = provider.requests
    assert image_blocks(request.body) == []
    text = json.dumps(request.body["messages"][-1])
    assert "[image: error.png] (saved in your working folder as" in text
    assert "image omitted: scripted/test-model does not accept images" in text


@pytest.mark.parametrize("msgtype", ["m.audio", "m.video"])
async def test_audio_and_video_are_said_plainly_not_to_have_been_read(
    tmp_path: Path, provider: ScriptedProvider, msgtype: str
) -> None:
    provider.script(Reply(text="I could not listen to that."))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        media = rooms.store.put_media("@you:miniroom.local", "memo.ogg", "audio/ogg", b"OggS fake")
        rooms.post("memo.ogg", msgtype=msgtype, url=media.url)
        await rooms.settle()
        assert not (rooms.data_dir / "workspaces" / "helper" / "uploads").exists()
    kind = msgtype.removeprefix("m.")
    [request] = provider.requests
    not_read = f"not read: miniroom does not read {kind} messages, so its content is unknown"
    assert prompt_of(request) == f"You: [{kind}: memo.ogg] ({not_read})"


async def test_other_kinds_of_message_are_still_ignored_with_a_warning(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.script(Reply(text="Text I can read."))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        with caplog.at_level(logging.WARNING, logger="miniroom.rooms.runtime"):
            where = rooms.post("Oslo", msgtype="m.location", geo_uri="geo:59.9,10.7")
            rooms.post("and this?")
            await rooms.settle()
        [request] = provider.requests
        assert prompt_of(request) == "You: and this?"
    expected = f"Ignoring a m.location message from @you:miniroom.local in {rooms.lobby} ({where})"
    assert expected in caplog.text


async def test_a_file_named_like_a_command_is_a_file_not_a_command(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Got the file."))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        media = rooms.store.put_media("@you:miniroom.local", "!thread_mode room", "text/plain", b"x")
        posted = rooms.post("!thread_mode room", msgtype="m.file", url=media.url)
        await rooms.settle()
        assert not (rooms.data_dir / "tracking" / "thread_modes.json").exists()
        saved = rooms.data_dir / "workspaces" / "helper" / conversation_folder(rooms.lobby, posted)
        assert [path.name for path in saved.iterdir()] == ["thread_mode_room"]
    [request] = provider.requests
    assert "[file: !thread_mode room]" in prompt_of(request)


async def test_an_agent_hands_back_a_file_it_wrote_as_an_m_file_after_its_reply(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(tool_calls=[("write", {"path": "out/summary.csv", "content": "city,visits\nLima,5\n"})]),
        Reply(tool_calls=[("send_file", {"path": "out/summary.csv"}), ("send_file", {"path": "../x"})]),
        Reply(text="Here is the summary."),
    )
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        rooms.post("summarise the visits into a file")
        await rooms.settle()
        reply, handed = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]).endswith("Here is the summary.")
        content = handed["content"]
        assert (content["msgtype"], content["body"], content["info"]) == (
            "m.file",
            "summary.csv",
            {"mimetype": "text/csv", "size": 19},
        )
        assert content["m.relates_to"]["m.in_reply_to"] == {"event_id": reply["event_id"]}
        assert content["m.relates_to"]["event_id"] == reply["content"]["m.relates_to"]["event_id"]
        assert rooms.store.media(content["url"]).data == b"city,visits\nLima,5\n"
    results = json.dumps(provider.requests[2].body["messages"][-1])
    assert "summary.csv (19 bytes) will be posted after your reply." in results
    assert "outside the working folder" in results
