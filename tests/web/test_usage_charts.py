"""The usage page draws: spend and tokens per agent, model and day as SVG bars in Chromium, each bar carrying
the numbers of its table row, cache reads beside input, and bar lengths in proportion."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, expect

from miniroom.engine import Session, directory_for_cwd
from miniroom.llm import AssistantMessage, TextContent, Usage
from miniroom.transports.embedded import RoomStore
from tests.web.conftest import serve_in_thread
from tests.web.settings_pages import open_card
from tests.web.settings_support import make_project, project_for, settings_app

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

CONFIG = """\
agents:
  helper: {display_name: Helper, model: default, rooms: [lobby]}
  reviewer: {display_name: Reviewer, model: default, rooms: [lobby]}
rooms:
  lobby: {display_name: Lobby}
models:
  default: {model: anthropic/claude-sonnet-5}
"""
DAY = 86_400.0
# (agent, model, days ago, usage): two agents, two models, two days, cache reads on some.
REQUESTS = [
    ("helper", "claude-sonnet-5", 0, Usage(1_000, 200, 3_000, 500, 0.0321)),
    ("helper", "claude-sonnet-5", 1, Usage(4_000, 300, 0, 0, 0.0165)),
    ("helper", "claude-haiku-4-5", 0, Usage(800, 100, 0, 0, 0.0013)),
    ("reviewer", "claude-sonnet-5", 1, Usage(2_000, 900, 6_000, 0, 0.0213)),
]


def write_sessions(data_dir: Path, agent_dir: Path) -> None:
    """The agents' sessions as the runtime writes them: each request an assistant message with its usage."""
    now = time.time()
    for agent, model, days_ago, usage in REQUESTS:
        workspace = data_dir / "workspaces" / agent
        workspace.mkdir(parents=True, exist_ok=True)
        with Session.create(directory_for_cwd(agent_dir, workspace), workspace) as session:
            message = AssistantMessage(
                [TextContent("Done.")], "anthropic", model, usage=usage, timestamp=now - days_ago * DAY
            )
            session.append_message(message)


@pytest.fixture
def usage_server(store: RoomStore, tmp_path: Path) -> Iterator[str]:
    folder = make_project(tmp_path / "project", config=CONFIG)
    agent_dir = tmp_path / "mini"
    write_sessions(tmp_path / "data", agent_dir)
    project = project_for(folder, tmp_path / "data", {"MINI_AGENT_DIR": str(agent_dir)})
    with serve_in_thread(settings_app(store, project)) as url:
        yield url


async def table_rows(section: Locator) -> list[list[str]]:
    rows = await section.locator("table tr").all()
    return [await row.locator("td").all_inner_texts() for row in rows[1:]]


async def bar_titles(chart: Locator, name: str) -> list[str]:
    bar = chart.locator(f'g.usage-bar[data-key="{name}"]')
    return await bar.locator("rect title").all_text_contents()


async def bar_width(chart: Locator, name: str, kind: str) -> float:
    width = await chart.locator(f'g.usage-bar[data-key="{name}"] rect.{kind}').get_attribute("width")
    return float(width or "nan")


@pytest.mark.parametrize(("key", "count"), [("agent", 2), ("model", 2), ("day", 2)])
async def test_each_bar_carries_the_numbers_of_its_table_row(
    page: Page, usage_server: str, key: str, count: int
) -> None:
    body = await open_card(page, usage_server, "Usage")
    section = body.locator(f".usage-group.{key}")
    rows = await table_rows(section)
    assert len(rows) == count
    spend, tokens = section.locator("figure.usage-chart.cost"), section.locator("figure.usage-chart.tokens")
    await expect(spend.locator("g.usage-bar")).to_have_count(count)
    for name, requests, _failed, given, output, cache_read, cache_write, cost in rows:
        assert await bar_titles(spend, name) == [f"{name}: {cost} for {requests} requests"]
        assert await bar_titles(tokens, name) == [
            f"{name}: {given} input tokens",
            f"{name}: {cache_read} cache read tokens",
            f"{name}: {cache_write} cache write tokens",
            f"{name}: {output} output tokens",
        ]
        await expect(spend.locator(f'g.usage-bar[data-key="{name}"] text.value')).to_have_text(cost)


async def test_bars_are_in_proportion_and_cache_reads_show_their_share_of_input(
    page: Page, usage_server: str
) -> None:
    body = await open_card(page, usage_server, "Usage")
    agents = body.locator(".usage-group.agent")
    spend, tokens = agents.locator("figure.cost"), agents.locator("figure.tokens")
    helper, reviewer = sum(u.cost for a, *_, u in REQUESTS if a == "helper"), 0.0213
    ratio = await bar_width(spend, "reviewer", "cost") / await bar_width(spend, "helper", "cost")
    assert ratio == pytest.approx(reviewer / helper, rel=1e-3)
    # reviewer: 2,000 input and 6,000 read from the cache: the cache segment is three times the input's
    cached = await bar_width(tokens, "reviewer", "cache_read") / await bar_width(tokens, "reviewer", "input")
    assert cached == pytest.approx(3.0, rel=1e-3)
    label = tokens.locator('g.usage-bar[data-key="reviewer"] text.value')
    await expect(label).to_have_text("8,900 · 75% of input from cache")
    # of all input (7,800 anew, 9,000 from the cache, 500 written to it) 52% came from the cache
    await expect(body.locator(".usage-cache")).to_contain_text("52% of all input")
    await expect(body.locator(".usage-legend .legend-entry")).to_have_text(
        ["input", "cache read", "cache write", "output"]
    )
