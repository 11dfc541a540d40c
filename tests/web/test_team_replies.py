"""A team's reply and an agent's reply in the web chat: the members' tool cards end and open, the team's
spend shows, the room's spend counts its threads, and a streamed reply is not marked "(edited)"."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.async_api import Locator, Page, expect

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.runtime.serve_process import ServeProcess
from tests.runtime.support import agent_entry, write_config
from tests.web.chat_pages import WAIT_MS, ask

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

LONG_NAME = "Helper, who reads every folder of the project twice before answering anything at all"
TEAM = {"crew": {"display_name": "Crew", "agents": ["helper"], "mode": "collaborate", "rooms": ["lobby"]}}


@pytest.fixture(scope="module")
def team_provider() -> Iterator[ScriptedProvider]:
    with ScriptedProvider() as server:
        yield server


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, team_provider: ScriptedProvider
) -> Iterator[ServeProcess]:
    """Agent `helper` and team `crew` (helper alone) in the lobby, answering in threads."""
    folder = tmp_path_factory.mktemp("team")
    helper = {**agent_entry(LONG_NAME), "thread_mode": "thread"}
    config = write_config(folder, team_provider, {"helper": helper}, teams=TEAM)
    serve = ServeProcess(config, clean_env(folder / "mini"), folder / "serve.log")
    serve.start()
    try:
        yield serve
    finally:
        serve.stop()


async def ask_the_team(
    page: Page, served: ServeProcess, provider: ScriptedProvider, question: str
) -> Locator:
    """The team's finished reply to a request its member answers with one `ls` call."""
    provider.script(Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="The folder is empty."))
    reply = await ask(page, served, f"@crew {question}")
    await expect(reply.locator(".body")).to_contain_text("The folder is empty.", timeout=WAIT_MS)
    await expect(reply).not_to_have_class(re.compile(r"\bstreaming\b"), timeout=WAIT_MS)
    return reply


async def test_a_team_members_tool_card_ends(
    page: Page, served: ServeProcess, team_provider: ScriptedProvider
) -> None:
    card = (await ask_the_team(page, served, team_provider, "is the folder empty?")).locator(".tool-card")
    await expect(card).to_have_class(re.compile(r"\bdone\b"))
    await expect(card.locator(".tool-status")).to_have_text("")
    name = card.locator(".tool-name")
    await expect(name).to_have_text("ls")
    # the member's long name makes the summary long: it is cut, and the tool's name stays on one line
    lines = await name.evaluate(
        "(el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).fontSize)"
    )
    assert lines < 1.6, f"the tool name takes {lines:.1f} font sizes of height: it wraps"


async def test_a_team_members_tool_card_opens_with_its_call(
    page: Page, served: ServeProcess, team_provider: ScriptedProvider
) -> None:
    card = (await ask_the_team(page, served, team_provider, "what does the folder hold?")).locator(
        ".tool-card"
    )
    await card.locator("summary").click()
    detail = card.locator(".tool-detail")
    await expect(detail.locator(".tool-arguments")).to_contain_text('"path": "."', timeout=WAIT_MS)
    await expect(detail.locator(".tool-result")).not_to_have_text("(still running)")


async def test_a_teams_reply_shows_its_spend(
    page: Page, served: ServeProcess, team_provider: ScriptedProvider
) -> None:
    reply = await ask_the_team(page, served, team_provider, "which files are here?")
    await expect(reply.locator(".spend")).to_have_text(re.compile(r"^\$\d+\.\d{4}$"))


async def ask_the_agent(
    page: Page, served: ServeProcess, provider: ScriptedProvider, question: str
) -> Locator:
    provider.script(Reply(text="Hello from the thread."))
    reply = await ask(page, served, f"@helper {question}")
    await expect(reply.locator(".body")).to_contain_text("Hello from the thread.", timeout=WAIT_MS)
    await expect(reply).not_to_have_class(re.compile(r"\bstreaming\b"), timeout=WAIT_MS)
    return reply


async def test_a_streamed_reply_is_not_marked_edited(
    page: Page, served: ServeProcess, team_provider: ScriptedProvider
) -> None:
    reply = await ask_the_agent(page, served, team_provider, "greet me")
    await expect(reply).not_to_have_class(re.compile(r"\bedited\b"))
    await page.reload()  # read back from the room's history, with the reply's last edit bundled
    mine = page.locator("#timeline .message.mine", has_text="greet me")
    await mine.hover()
    await mine.get_by_role("button", name="Reply in thread").click()
    again = page.locator("#thread .message:not(.mine)").first
    await expect(again.locator(".body")).to_contain_text("Hello from the thread.", timeout=WAIT_MS)
    await expect(again).not_to_have_class(re.compile(r"\bedited\b"))


async def test_the_rooms_spend_counts_its_threads(
    page: Page, served: ServeProcess, team_provider: ScriptedProvider
) -> None:
    await ask_the_agent(page, served, team_provider, "say hello again")
    await expect(page.locator("#thread-spend")).to_contain_text("tokens")
    # every reply here is in a thread: the room's spend is what they spent, not nothing
    await expect(page.locator("#room-spend")).to_be_visible()
    await expect(page.locator("#room-spend")).to_contain_text("tokens")
