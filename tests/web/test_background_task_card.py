"""A background task's card in the web chat: the `agent_start` call's card shows how the task ended."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.web.test_chat_e2e import WAIT_MS, miniroom_serve, send_in_lobby

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


def start(description: str, prompt: str) -> tuple[str, dict[str, str]]:
    return ("agent_start", {"description": description, "prompt": prompt})


async def test_the_start_card_shows_the_answer_or_the_error_once_the_task_ends(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(tool_calls=[start("count files", "CHILD-A count"), start("read the log", "CHILD-B read")]),
        Reply(text="Both are running."),
    )
    provider.repeat(Reply(text="Noted."))  # each outcome comes as a message: one request or two
    provider.script_for("CHILD-A", Reply(text="zero files here"))
    provider.script_for("CHILD-B", Reply.error(401, "authentication_error", "invalid x-api-key"))
    with miniroom_serve(tmp_path, provider) as serve:
        thread = await send_in_lobby(page, serve, "Count the files and read the log, in the background")
        cards = thread.locator(".message:not(.mine) .tool-card")
        done, failed = cards.nth(0), cards.nth(1)
        await expect(done.locator(".tool-summary")).to_contain_text("(done)", timeout=WAIT_MS)
        await expect(failed.locator(".tool-summary")).to_contain_text("(failed)", timeout=WAIT_MS)
        await expect(failed).to_have_class("tool-card error")
        await expect(failed.locator(".tool-status")).to_have_text("failed")
        await expect(done).not_to_have_class("tool-card error")
        await done.locator(".tool-name").click()  # not the summary's middle: the thread link
        outcome = done.locator(".tool-outcome")
        await expect(outcome.locator("h5")).to_have_text("Task answer")
        await expect(outcome.locator("pre")).to_have_text("zero files here")
        await failed.locator(".tool-name").click()
        await expect(failed.locator(".tool-outcome h5")).to_have_text("Task error")
        await expect(failed.locator(".tool-outcome pre")).to_contain_text("invalid x-api-key")
        # the call's own result is still there: the task's number
        await expect(done.locator(".tool-detail").first).to_contain_text("Started background task 1")
