"""The web chat's thread export buttons, in Chromium against a running `miniroom serve`: each downloads the
open thread, as Markdown and as JSON."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.web.chat_pages import WAIT_MS, ask, serving

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def test_the_open_thread_downloads_as_markdown_and_json(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="The folder is empty."))
    with serving(tmp_path, provider) as served:
        reply = await ask(page, served, "is the folder empty?")
        await expect(reply.locator(".body")).to_contain_text("The folder is empty.", timeout=WAIT_MS)
        downloads = {}
        for name, button in (("md", "Markdown"), ("json", "JSON")):
            export = page.locator("#thread").get_by_role("button", name=f"Export the thread as {button}")
            async with page.expect_download() as started:
                await export.click()
            download = await started.value
            assert download.suggested_filename.startswith("thread-lobby-")
            assert download.suggested_filename.endswith(f".{name}")
            saved = tmp_path / download.suggested_filename
            await download.save_as(saved)
            downloads[name] = await asyncio.to_thread(saved.read_text, encoding="utf-8")
    assert downloads["md"].startswith("# is the folder empty?\n")
    assert "**Helper** (@helper:miniroom.local)" in downloads["md"]
    assert "Tool call `ls`" in downloads["md"]
    messages = json.loads(downloads["json"])["messages"]
    assert [m["sender"]["name"] for m in messages] == ["You", "Helper"]
    assert messages[1]["tool_calls"][0]["arguments"] == {"path": "."}
