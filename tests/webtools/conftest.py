"""The local web site every fetch test reads, and helpers to write catalogues and build the tools."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.webtools.servers import Answer, Route, Running, Seen, by_path, serve

PAGE = """<!doctype html><html><head><title>Tasks</title></head><body>
<nav>Home | Docs</nav><h1>Asyncio tasks</h1><p>A <b>TaskGroup</b> runs tasks <a href="/more">together</a>.</p>
<pre><code class="language-python">async with asyncio.TaskGroup() as tg:
    tg.create_task(work())</code></pre><img src="/x.png" alt="diagram"></body></html>"""
JS_PAGE = """<!doctype html><html><head><title>Built</title></head><body><div id="app"></div>
<script>document.getElementById("app").innerHTML = "<h1>Built by script</h1><p>rendered in the browser</p>";
</script></body></html>"""
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


def huge_page(paragraphs: int = 3000) -> str:
    """About 200 KB of HTML: a long documentation page."""
    body = "".join(
        f"<p>Paragraph {n}: the quick brown fox jumps over the lazy dog.</p>\n" for n in range(paragraphs)
    )
    return f"<html><head><title>Huge</title></head><body><h1>Huge</h1>\n{body}</body></html>"


def site_routes(release: threading.Event) -> dict[str, Route]:
    def slow(seen: Seen) -> Answer:
        release.wait(60)  # until the test is over: the page never comes in time
        return Answer.of("text/html", "<p>late</p>")

    def blocked(seen: Seen) -> Answer:  # a site that refuses plain requests, but answers through the proxy
        if "via" not in seen.headers:
            return Answer.of("text/html", "<h1>Forbidden</h1>", 403)
        return Answer.of("text/html", "<h1>Welcome, proxied visitor</h1>")

    return {
        "/page.html": lambda seen: Answer.of("text/html; charset=utf-8", PAGE),
        "/data.json": lambda seen: Answer.json({"name": "miniroom", "tools": ["fetch", "search"]}),
        "/table.csv": lambda seen: Answer.of("text/csv", "name,count\nfetch,1\nsearch,2\n"),
        "/redirect": lambda seen: Answer(302, b"", {"Location": "/page.html"}),
        "/loop": lambda seen: Answer(302, b"", {"Location": "/loop"}),
        "/go": lambda seen: Answer(302, b"", {"Location": seen.query["to"]}),  # an open redirect
        "/slow": slow,
        "/error": lambda seen: Answer.of("text/plain", "boom", 500),
        "/blocked.html": blocked,
        "/huge.html": lambda seen: Answer.of("text/html", huge_page()),
        "/image.png": lambda seen: Answer.of("image/png", PNG),
        "/js.html": lambda seen: Answer.of("text/html", JS_PAGE),
        "/big.html": lambda seen: Answer.of("text/html", "<p>" + "x" * (6 * 1024 * 1024) + "</p>"),
        "/empty": lambda seen: Answer.of("text/html", ""),
        "/notes": lambda seen: Answer.of("application/octet-stream", "plain notes\nsecond line\n"),
        "/echo-headers": lambda seen: Answer.json(dict(seen.headers)),
    }


@pytest.fixture
def site() -> Iterator[Running]:
    release = threading.Event()
    with serve(by_path(site_routes(release))) as running:
        yield running
        release.set()


def write_catalogue(project: Path, name: str, text: str) -> Path:
    path = project / ".miniroom" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
