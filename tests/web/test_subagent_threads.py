"""A subagent's child thread in the web chat: the parent's tool line opens it, and it links back."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.rooms.runtime.child_threads import PARENT_LINK_TEXT
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.web.test_chat_e2e import WAIT_MS, miniroom_serve, send_in_lobby

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def test_the_tool_line_opens_the_subagent_thread_and_the_thread_leads_back(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(tool_calls=[("agent", {"description": "count files", "prompt": "CHILD count the files"})]),
        Reply(text="The workspace has no files."),
    )
    provider.script_for("CHILD", Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="zero files here"))
    with miniroom_serve(tmp_path, provider) as serve:
        question = "How many files are there?"
        thread = await send_in_lobby(page, serve, question)
        reply = thread.locator(".message:not(.mine) .body")
        await expect(reply.locator(".markdown")).to_have_text("The workspace has no files.", timeout=WAIT_MS)
        tool = reply.locator(".tool-card .tool-summary")  # the call's card keeps the thread link
        await expect(tool).to_contain_text("Agent count files → thread (done)", timeout=WAIT_MS)
        await tool.get_by_role("link", name="thread").click()
        # the child's thread: its root names the task, its reply is the child's, with its spend
        await expect(thread.locator(".message").first).to_contain_text(
            "Subagent: count files", timeout=WAIT_MS
        )
        child = thread.locator(".message").nth(1).locator(".body")
        await expect(child.locator(".tool-card .tool-summary")).to_have_text("Ls .", timeout=WAIT_MS)
        await expect(child).to_contain_text("zero files here")
        await expect(child).to_contain_text("tokens")
        assert page.url.startswith(serve.url)  # the link opened the thread in place
        # the root links to the parent's reply: following it shows the question's thread again
        notice = thread.locator(".message").first
        await expect(notice).not_to_contain_text("matrix.to")  # the link is named, not a bare address
        await notice.get_by_role("link", name=PARENT_LINK_TEXT).click()
        await expect(thread.locator(".message.mine .body")).to_have_text(question, timeout=WAIT_MS)
