"""Files in the web chat, in Chromium against `miniroom serve`: a screenshot dropped on the room reaches a
model that takes images, a file too large for the store is refused with the limit in words."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.transports.embedded.media import MAX_MEDIA_BYTES
from tests.conftest import clean_env
from tests.runtime.media_support import PNG, image_blocks, image_model, takes_images
from tests.runtime.serve_process import ServeProcess
from tests.runtime.support import agent_entry, write_config
from tests.web.chat_pages import WAIT_MS

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

# Builds a DataTransfer holding one file, as a drag from the desktop carries it.
DRAGGED_FILE = """([name, type, b64]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, { type }));
  return transfer;
}"""


def serve_seeing(tmp_path: Path, provider: ScriptedProvider) -> ServeProcess:
    """`miniroom serve` with agent `helper` in the lobby on a scripted model that takes images."""
    takes_images(tmp_path / "mini")
    config = write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    text = config.read_text(encoding="utf-8").replace("scripted/test-model", "scripted/seeing-model")
    config.write_text(text, encoding="utf-8")
    assert image_model(provider, "anthropic-messages")["model"] == "scripted/seeing-model"
    return ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log")


async def test_a_screenshot_dropped_on_the_room_reaches_a_model_that_takes_images(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="That is a one-pixel screenshot."))
    served = serve_seeing(tmp_path, provider)
    served.start()
    try:
        await page.goto(f"{served.base}?room=lobby")
        await expect(page.locator("#composer-input")).to_be_enabled()
        transfer = await page.evaluate_handle(
            DRAGGED_FILE, ["screenshot.png", "image/png", base64.b64encode(PNG).decode()]
        )
        await page.dispatch_event("#room", "dragover", {"dataTransfer": transfer})
        await page.dispatch_event("#room", "drop", {"dataTransfer": transfer})
        mine = page.locator("#timeline .message.mine")
        image = mine.locator("img.attachment-image")
        await expect(image).to_have_attribute("alt", "screenshot.png")
        await expect(image).to_have_attribute(
            "src", f"data:image/png;base64,{base64.b64encode(PNG).decode()}"
        )
        await mine.hover()
        await mine.get_by_role("button", name="Reply in thread").click()
        reply = page.locator("#thread .message:not(.mine)").first
        await expect(reply).to_contain_text("That is a one-pixel screenshot.", timeout=WAIT_MS)
    finally:
        served.stop()
    [request] = provider.requests
    assert image_blocks(request.body) == [base64.b64encode(PNG).decode()]
    assert "[image: screenshot.png] (saved in your working folder as uploads/" in str(
        request.body["messages"]
    )


async def test_a_file_over_the_limit_is_refused_with_the_limit_in_words(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    served = serve_seeing(tmp_path, provider)
    served.start()
    try:
        await page.goto(f"{served.base}?room=lobby")
        await expect(page.locator("#composer-input")).to_be_enabled()
        # Made in the page: 20 MB through the browser's remote protocol would take a minute.
        transfer = await page.evaluate_handle(
            """([name, size]) => {
              const transfer = new DataTransfer();
              transfer.items.add(new File([new Uint8Array(size)], name));
              return transfer;
            }""",
            ["dump.bin", MAX_MEDIA_BYTES + 1],
        )
        await page.dispatch_event("#room", "drop", {"dataTransfer": transfer})
        await expect(page.locator("#status")).to_have_text(
            "Could not send dump.bin: the file is 20,971,521 bytes; files up to 20,971,520 bytes (20 MB) "
            "can be sent. Send a smaller file, or a link to it"
        )
        await expect(page.locator("#timeline .message.mine")).to_have_count(0)
    finally:
        served.stop()
    assert provider.requests == []
