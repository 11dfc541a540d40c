"""The browser services: BrowserEmulation renders a page built by scripts in Debian's Chromium; RemoteBrowser
speaks to a Playwright MCP stand-in; Zendriver says plainly that it is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.webtools.conftest import write_catalogue
from tests.webtools.mcp_standin import PlaywrightMcpStandIn
from tests.webtools.servers import Running, serve
from tests.webtools.support import build_tools, call, text

pytestmark = pytest.mark.browser  # Chromium, and the Nodriver service's own install


async def test_browser_emulation_renders_a_page_built_by_scripts(tmp_path: Path, site: Running) -> None:
    write_catalogue(
        tmp_path,
        "fetch.yml",
        # The site is on 127.0.0.1: loopback, which each service reaches only with AllowPrivateNetwork.
        "services:\n  - name: Plain\n    type: Direct\n    priority: 1\n"
        "    settings: {AllowPrivateNetwork: true}\n"
        "  - name: Browser\n    type: BrowserEmulation\n    priority: 2\n"
        "    settings: {WaitMs: 100, AllowPrivateNetwork: true}\n",
    )
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url=f"{site.url}/js.html")
    assert text(result) == (
        f"Fetched {site.url}/js.html with Browser\nFailed first: Plain: the page's HTML holds no text (it "
        "may be built by scripts)\n\n# Built by script\n\nrendered in the browser\n"
    )


@pytest.mark.parametrize("evaluate", [True, False], ids=["html", "snapshot"])
async def test_remote_browser_drives_a_playwright_mcp_server(
    tmp_path: Path, site: Running, evaluate: bool
) -> None:
    stand_in = PlaywrightMcpStandIn(evaluate=evaluate)
    with serve(stand_in) as server:
        write_catalogue(
            tmp_path,
            "fetch.yml",
            "services:\n  - name: Remote\n    type: RemoteBrowser\n    settings:\n"
            f"      ServiceUrl: {server.url}/mcp\n"
            "      WaitMs: 500\n"
            "      AllowPrivateNetwork: true\n",  # the site is on 127.0.0.1 (loopback)
        )
        result = await call(build_tools(tmp_path)["fetch"], tmp_path, url=f"{site.url}/redirect")
    shown = text(result)
    assert shown.startswith(
        f"Fetched {site.url}/page.html (redirected from {site.url}/redirect) with Remote\n\n"
    )
    names = [name for name, _ in stand_in.calls]
    assert names[:3] == ["browser_navigate", "browser_wait_for", "browser_evaluate"]
    assert stand_in.calls[1] == ("browser_wait_for", {"time": 0.5})
    if evaluate:
        assert "A **TaskGroup** runs tasks [together](/more)." in shown
    else:
        assert names[3:] == ["browser_snapshot"]
        assert shown.endswith('```yaml\n- heading "Asyncio tasks" [level=1]\n```')


async def test_remote_browser_with_zendriver_says_it_is_not_installed(tmp_path: Path) -> None:
    # zendriver is no dependency of miniroom, nor of its tests: the message is what users without it see.
    write_catalogue(
        tmp_path,
        "fetch.yml",
        "services:\n  - name: Zen\n    type: RemoteBrowser\n    settings:\n      ServiceUrl: http://127.0.0.1:9222\n"
        "      Protocol: zendriver\n",
    )
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url="https://example.org/")
    assert text(result).endswith(
        "Zen: RemoteBrowser with Protocol Zendriver needs zendriver, which is not installed: "
        "pip install zendriver"
    )


async def test_nodriver_provisions_its_venv_and_renders_a_page_built_by_scripts(
    tmp_path: Path, site: Running
) -> None:
    write_catalogue(
        tmp_path,
        "fetch.yml",
        "services:\n  - name: Undetected\n    type: Nodriver\n"
        "    settings: {WaitMs: 500, TimeoutSec: 120, AllowPrivateNetwork: true}\n",  # the site is loopback
    )
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url=f"{site.url}/js.html")
    assert text(result) == (
        f"Fetched {site.url}/js.html with Undetected\n\n# Built by script\n\nrendered in the browser\n"
    )
    venv = tmp_path / "engine-data" / "web" / "nodriver-venv"
    assert (venv / "miniroom-ready").read_text() == "nodriver\n"


async def test_browser_emulation_without_playwright_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "playwright", None)  # as in a base install, without the extra
    write_catalogue(tmp_path, "fetch.yml", "services:\n  - name: Browser\n    type: BrowserEmulation\n")
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url="https://example.org/")
    assert text(result).endswith(
        "Browser: BrowserEmulation needs Playwright, which is not installed: pip install 'miniroom[browser]'"
    )
