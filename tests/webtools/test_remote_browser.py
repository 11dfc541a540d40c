"""RemoteBrowser speaks to its Playwright MCP server through the MCP SDK's Streamable HTTP client: an answer
spread over several lines of one event reads as one, and a server that is not MCP is named as such."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.webtools.conftest import write_catalogue
from tests.webtools.mcp_standin import PlaywrightMcpStandIn
from tests.webtools.servers import Answer, Running, Seen, serve
from tests.webtools.support import build_tools, call, text


def remote_catalogue(tmp_path: Path, service_url: str, timeout: int = 30) -> None:
    write_catalogue(
        tmp_path,
        "fetch.yml",
        "services:\n  - name: Remote\n    type: RemoteBrowser\n    settings:\n"
        f"      ServiceUrl: {service_url}\n"
        f"      TimeoutSec: {timeout}\n"
        "      AllowPrivateNetwork: true\n",  # the site is on 127.0.0.1 (loopback)
    )


async def test_an_answer_over_several_data_lines_of_one_event_is_read_whole(
    tmp_path: Path, site: Running
) -> None:
    stand_in = PlaywrightMcpStandIn(multiline_events=True)
    with serve(stand_in) as server:
        remote_catalogue(tmp_path, f"{server.url}/mcp")
        result = await call(build_tools(tmp_path)["fetch"], tmp_path, url=f"{site.url}/page.html")
    shown = text(result)
    assert shown.startswith(f"Fetched {site.url}/page.html with Remote\n\n")
    assert "A **TaskGroup** runs tasks [together](/more)." in shown
    assert [name for name, _ in stand_in.calls] == [
        "browser_navigate",
        "browser_wait_for",
        "browser_evaluate",
    ]


async def test_a_service_url_that_is_no_mcp_server_says_what_answered(tmp_path: Path, site: Running) -> None:
    def page(seen: Seen) -> Answer:
        return Answer.of("text/html", "<html><body>a web page</body></html>")

    with serve(page) as server:
        remote_catalogue(tmp_path, f"{server.url}/mcp")
        result = await call(build_tools(tmp_path)["fetch"], tmp_path, url=f"{site.url}/page.html")
    assert text(result) == (
        f"Could not fetch {site.url}/page.html: every service failed. Remote: the browser service at "
        f"{server.url}/mcp failed: it answered with text/html, not MCP (application/json or "
        "text/event-stream); check ServiceUrl in .miniroom/fetch.yml"
    )


async def test_a_service_that_never_answers_a_call_fails_at_the_fetch_deadline(
    tmp_path: Path, site: Running
) -> None:
    stand_in, released = PlaywrightMcpStandIn(), threading.Event()

    def hanging(seen: Seen) -> Answer:
        if b"browser_navigate" in seen.body:
            released.wait()  # until the test is over: the call is never answered
        return stand_in(seen)

    with serve(hanging) as server:
        try:
            remote_catalogue(tmp_path, f"{server.url}/mcp", timeout=1)
            result = await call(build_tools(tmp_path)["fetch"], tmp_path, url=f"{site.url}/page.html")
        finally:
            released.set()
    assert text(result) == (
        f"Could not fetch {site.url}/page.html: every service failed. Remote: no complete page within 1 s "
        "(TimeoutSec in .miniroom/fetch.yml is the deadline for the whole fetch, redirects included)"
    )
