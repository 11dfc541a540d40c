"""The usage page in Chromium against `miniroom serve`: its totals are those of the agent's sessions, failed
attempts included."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.engine.session import Session
from miniroom.llm.messages import AssistantMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.web.chat_pages import WAIT_MS, ask, serving
from tests.web.settings_pages import open_card

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


def stored_requests(agent_dir: Path) -> list[AssistantMessage]:
    sessions = (agent_dir / "agent-sessions").glob("*/*.jsonl")
    return [m for path in sessions for m in Session.load(path).history() if isinstance(m, AssistantMessage)]


async def test_the_usage_totals_match_the_sessions(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply.error(500, "api_error", "try again"),
        Reply(text="One.", usage=(1200, 30, 400, 0)),
        Reply(text="Two.", usage=(2500, 70, 0, 100)),
    )
    with serving(tmp_path, provider, retry="retryIntervalSeconds: 1\nmaxAttempts: 2\n") as served:
        first = await ask(page, served, "first question")
        await expect(first.locator(".markdown")).to_have_text("One.", timeout=WAIT_MS)
        second = await ask(page, served, "second question")
        await expect(second.locator(".markdown")).to_have_text("Two.", timeout=WAIT_MS)
        stored = stored_requests(tmp_path / "mini")
        body = await open_card(page, served.base, "Usage")
        total = body.locator(".usage-total")
        await expect(total.locator("dd.requests")).to_have_text(str(len(stored)))
        await expect(total.locator("dd.failed")).to_have_text("1")
        await expect(total.locator("dd.input")).to_have_text(f"{sum(m.usage.input for m in stored):,}")
        await expect(total.locator("dd.output")).to_have_text(f"{sum(m.usage.output for m in stored):,}")
        await expect(total.locator("dd.cache_read")).to_have_text("400")
        await expect(total.locator("dd.cache_write")).to_have_text("100")
        agents = body.locator(".usage-group.agent tr")
        await expect(agents.nth(1).locator("td").first).to_have_text("helper")
        await expect(body.locator(".usage-group.model td").first).to_have_text("scripted/test-model")
    assert len(stored) == 3
