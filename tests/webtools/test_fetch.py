"""The fetch tool against a real local web site and a real HTTP proxy: conversion, redirects, failures
passing the turn down the chain, big pages saved for `read`, and secrets kept out of every message."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from miniroom.config.tls import trusted_tls_context
from miniroom.engine.tool import ToolError
from miniroom.tools.output_folder import OutputFolder
from miniroom.tools.read import ReadTool
from tests.webtools.conftest import site_routes, write_catalogue
from tests.webtools.servers import Running, by_path, company_tls, forwarding_proxy, serve
from tests.webtools.support import build_tools, call, text

PROXY_USER, PROXY_PASSWORD = "ann", "proxy-secret-731"
# The test site and proxy listen on 127.0.0.1, a loopback address, which a fetch service reaches only when
# its settings allow it: every service of these tests does, as a user testing a local dev server would.
LOCAL = "AllowPrivateNetwork: true"


def direct(timeout: int = 30, name: str = "Direct HTTP", priority: int = 100) -> str:
    settings = f"    settings: {{TimeoutSec: {timeout}, {LOCAL}}}\n"
    return f"  - name: {name}\n    type: Direct\n    priority: {priority}\n{settings}"


@pytest.fixture
def proxy() -> Iterator[Running]:
    with serve(forwarding_proxy(PROXY_USER, PROXY_PASSWORD)) as running:
        yield running


def proxied(proxy_url: str, name: str = "Proxy", priority: int = 200) -> str:
    return (
        f"  - name: {name}\n    type: Proxied\n    priority: {priority}\n    settings:\n"
        f"      ProxyUrl: {proxy_url}\n      ProxyUsername: {PROXY_USER}\n      ProxyPassword: $PROXY_PASS\n"
        f"      {LOCAL}\n"
    )


async def fetch(
    project: Path, services: str, url: str, **arguments: object
) -> tuple[bool, str, dict[str, Any]]:
    write_catalogue(project, "fetch.yml", "services:\n" + services)
    tool = build_tools(project, {"PROXY_PASS": PROXY_PASSWORD})["fetch"]
    result = await call(tool, project, url=url, **arguments)
    return result.is_error, text(result), result.details


async def test_an_html_page_comes_as_markdown_naming_the_service(tmp_path: Path, site: Running) -> None:
    failed, shown, details = await fetch(tmp_path, direct(), f"{site.url}/page.html")
    assert not failed
    assert shown.startswith(f"Fetched {site.url}/page.html with Direct HTTP\n\n# Asyncio tasks\n\n")
    assert "A **TaskGroup** runs tasks [together](/more)." in shown
    assert "```python\nasync with asyncio.TaskGroup() as tg:" in shown
    assert "diagram" not in shown  # images are skipped
    assert details["service"] == "Direct HTTP"
    assert details["latency_ms"] >= 0
    assert (details["failed"], details["status"], details["content_type"]) == ([], 200, "text/html")


async def test_json_and_csv_pass_through_and_markdown_false_gives_the_raw_body(
    tmp_path: Path, site: Running
) -> None:
    _, json_text, _ = await fetch(tmp_path, direct(), f"{site.url}/data.json")
    assert json_text.endswith('\n\n{"name": "miniroom", "tools": ["fetch", "search"]}')
    _, csv_text, _ = await fetch(tmp_path, direct(), f"{site.url}/table.csv")
    assert csv_text.endswith("\n\nname,count\nfetch,1\nsearch,2\n")
    _, raw, _ = await fetch(tmp_path, direct(), f"{site.url}/page.html", markdown=False)
    assert "<h1>Asyncio tasks</h1>" in raw


async def test_redirects_are_followed_and_the_final_address_reported(tmp_path: Path, site: Running) -> None:
    _, shown, details = await fetch(tmp_path, direct(), f"{site.url}/redirect")
    assert shown.startswith(f"Fetched {site.url}/page.html (redirected from {site.url}/redirect) with Direct")
    assert details["url"] == f"{site.url}/page.html"
    failed, looped, _ = await fetch(tmp_path, direct(), f"{site.url}/loop")
    assert failed
    assert (
        looped
        == f"Could not fetch {site.url}/loop: every service failed. Direct HTTP: more than 10 redirects"
    )


async def test_an_http_error_and_a_slow_page_fail_with_their_reasons(tmp_path: Path, site: Running) -> None:
    failed, shown, details = await fetch(tmp_path, direct(), f"{site.url}/error")
    assert failed
    assert shown == (
        f"Could not fetch {site.url}/error: every service failed. Direct HTTP: HTTP 500 Internal Server Error"
    )
    assert details["failed"][0]["reason"] == "HTTP 500 Internal Server Error"
    _, slow, _ = await fetch(tmp_path, direct(timeout=1), f"{site.url}/slow")
    assert slow == (
        f"Could not fetch {site.url}/slow: every service failed. Direct HTTP: no complete page within 1 s "
        "(TimeoutSec in .miniroom/fetch.yml is the deadline for the whole fetch, redirects included)"
    )


async def test_a_site_that_blocks_plain_requests_is_fetched_through_the_proxy(
    tmp_path: Path, site: Running, proxy: Running, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "miniroom.web")
    services = direct(priority=1) + proxied(proxy.url)
    failed, shown, details = await fetch(tmp_path, services, f"{site.url}/blocked.html")
    assert not failed
    assert shown == (
        f"Fetched {site.url}/blocked.html with Proxy\nFailed first: Direct HTTP: HTTP 403 Forbidden\n\n"
        "# Welcome, proxied visitor\n"
    )
    assert details["service"] == "Proxy"
    assert [failure["service"] for failure in details["failed"]] == ["Direct HTTP"]
    assert [seen.target for seen in proxy.seen] == [f"{site.url}/blocked.html"]
    assert proxy.seen[0].headers["proxy-authorization"].startswith("Basic ")
    outcomes = [record.getMessage() for record in caplog.records if record.name == "miniroom.web.chain"]
    assert [line.split(" latency_ms=")[0] for line in outcomes] == [
        "fetch attempt: service='Direct HTTP' type=Direct",
        "fetch attempt: service='Proxy' type=Proxied",
    ]
    assert outcomes[0].endswith("outcome=failed reason=HTTP 403 Forbidden")
    assert outcomes[1].endswith("outcome=ok")
    assert PROXY_PASSWORD not in caplog.text


@pytest.fixture
def secure_site(monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    """The site over HTTPS, its certificate from a local CA that SSL_CERT_FILE names, as a company CA."""
    served, authority = company_tls()
    with (
        authority.cert_pem.tempfile() as trusted,
        serve(by_path(site_routes(threading.Event())), served) as site,
    ):
        monkeypatch.setenv("SSL_CERT_FILE", trusted)
        trusted_tls_context.cache_clear()  # read again with this variable, and again after the test
        yield site
    trusted_tls_context.cache_clear()


async def test_an_https_page_comes_through_the_proxys_tunnel(
    tmp_path: Path, secure_site: Running, proxy: Running
) -> None:
    url = f"{secure_site.url}/page.html"
    failed, shown, details = await fetch(tmp_path, proxied(proxy.url), url)
    assert not failed, shown
    assert shown.startswith(f"Fetched {url} with Proxy\n\n# Asyncio tasks\n\n")
    assert details["status"] == 200
    [tunnel] = proxy.seen  # one CONNECT; the GET inside the tunnel stays encrypted from the proxy
    assert (tunnel.method, tunnel.target) == ("CONNECT", secure_site.url.removeprefix("https://"))
    assert tunnel.headers["proxy-authorization"].startswith("Basic ")
    assert [seen.path for seen in secure_site.seen] == ["/page.html"]


async def test_an_https_page_with_an_untrusted_certificate_is_refused(
    tmp_path: Path, secure_site: Running, proxy: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE")
    trusted_tls_context.cache_clear()  # certifi's authorities only: the local CA is unknown to them
    url = f"{secure_site.url}/page.html"
    failed, shown, _ = await fetch(tmp_path, proxied(proxy.url), url)
    assert failed
    assert "Proxy: the site's certificate is not trusted ([SSL: CERTIFICATE_VERIFY_FAILED]" in shown, shown
    assert "set SSL_CERT_FILE to its certificate" in shown

    assert secure_site.seen == []


async def test_a_proxy_refusing_the_credentials_fails_without_showing_them(
    tmp_path: Path, site: Running, proxy: Running, caplog: pytest.LogCaptureFixture
) -> None:
    write_catalogue(tmp_path, "fetch.yml", "services:\n" + proxied(proxy.url))
    tool = build_tools(tmp_path, {"PROXY_PASS": "wrong-password-123"})["fetch"]
    result = await call(tool, tmp_path, url=f"{site.url}/page.html")
    assert result.is_error
    assert "Proxy: " in text(result)
    assert "407" in text(result)
    assert "wrong-password-123" not in text(result) + str(result.details) + caplog.text


async def test_the_first_service_down_passes_the_turn_to_the_second(tmp_path: Path, site: Running) -> None:
    with serve(lambda seen: None) as gone:  # type: ignore[arg-type,return-value]
        dead = gone.url
    services = proxied(dead, name="Dead proxy", priority=1) + direct(priority=2)
    failed, shown, details = await fetch(tmp_path, services, f"{site.url}/data.json")
    assert not failed
    assert shown.startswith(f"Fetched {site.url}/data.json with Direct HTTP\nFailed first: Dead proxy: ")
    assert details["failed"][0]["service"] == "Dead proxy"


async def test_an_empty_answer_passes_the_turn_on(tmp_path: Path, site: Running) -> None:
    services = direct(name="A", priority=1) + direct(name="B", priority=2)
    failed, shown, _ = await fetch(tmp_path, services, f"{site.url}/empty")
    assert failed
    empty = "empty answer (HTTP 200, no content)"
    assert shown.endswith(f"every service failed. A: {empty}; B: {empty}")


async def test_a_conversion_failure_is_final_and_not_replayed(tmp_path: Path, site: Running) -> None:
    services = direct(name="A", priority=1) + direct(name="B", priority=2)
    failed, shown, details = await fetch(tmp_path, services, f"{site.url}/big.html")
    assert failed
    assert shown.startswith(
        f"Could not fetch {site.url}/big.html: the page is 6.0 MB of HTML, more than the 5 MB"
    )
    assert shown.endswith("to get the raw HTML as a file (service A)")
    assert [seen.path for seen in site.seen] == ["/big.html"]  # B never fetched it again
    assert [failure["service"] for failure in details["failed"]] == ["A"]


async def test_binary_content_is_refused_naming_its_type(tmp_path: Path, site: Running) -> None:
    services = direct(name="A", priority=1) + direct(name="B", priority=2)
    failed, shown, _ = await fetch(tmp_path, services, f"{site.url}/image.png")
    assert failed
    assert shown == (
        f"Could not fetch {site.url}/image.png: {site.url}/image.png is an image (image/png), not text: "
        "fetch reads text and web pages only (service A)"
    )


async def test_a_page_too_long_is_saved_for_read_in_parts(tmp_path: Path, site: Running) -> None:
    write_catalogue(tmp_path, "fetch.yml", "services:\n" + direct())
    scratch = OutputFolder()
    try:
        tool = build_tools(tmp_path, scratch=scratch)["fetch"]
        result = await call(tool, tmp_path, url=f"{site.url}/huge.html")
        shown = text(result)
        saved = result.details["saved_to"]
        assert saved.startswith(str(scratch.path))
        assert saved.endswith(".md")
        assert "Paragraph 0:" in shown
        assert "Paragraph 2999:" not in shown
        assert shown.endswith(f"All of it is in {saved}: read it with read, offset=501 to go on.]")
        assert "lines; shown: lines 1-500." in shown
        page = await call(ReadTool(scratch), tmp_path, path=saved, offset=5990)
        assert "Paragraph 2998:" in text(page)
        with pytest.raises(ToolError, match="outside the working folder"):
            await call(ReadTool(scratch), tmp_path, path="/etc/hostname")
    finally:
        scratch.remove()


async def test_only_http_addresses_are_fetched(tmp_path: Path) -> None:
    write_catalogue(tmp_path, "fetch.yml", "services:\n" + direct())
    tool = build_tools(tmp_path)["fetch"]
    with pytest.raises(ToolError) as error:
        await call(tool, tmp_path, url="file:///etc/passwd")
    assert str(error.value) == (
        "fetch refused: 'file:///etc/passwd' is not an http:// or https:// address, "
        "the only ones fetch reads."
    )


async def test_extra_headers_and_the_user_agent_are_sent(tmp_path: Path, site: Running) -> None:
    services = (
        f"  - name: D\n    type: Direct\n    settings:\n      {LOCAL}\n      UserAgent: test-agent/1\n"
        "      ExtraHeaders: |\n        X-Team: docs\n        Authorization: Bearer $DOCS_TOKEN\n"
    )
    write_catalogue(tmp_path, "fetch.yml", "services:\n" + services)
    tool = build_tools(tmp_path, {"DOCS_TOKEN": "docs-token-555"})["fetch"]
    result = await call(tool, tmp_path, url=f"{site.url}/echo-headers")
    headers = site.seen[-1].headers
    assert (headers["user-agent"], headers["x-team"]) == ("test-agent/1", "docs")
    assert headers["authorization"] == "Bearer docs-token-555"
    assert "docs-token-555" not in text(result)  # the page echoed it; the result must not show it


async def test_no_fetch_tool_when_every_fetch_service_is_disabled(tmp_path: Path) -> None:
    write_catalogue(tmp_path, "fetch.yml", "services:\n  - name: D\n    type: Direct\n    enabled: false\n")
    assert build_tools(tmp_path) == {}
