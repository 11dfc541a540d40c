"""Fetch + convert: pages per second for a 200 KB documentation page fetched from a local server by the fetch
tool (Direct service: HTTP GET, charset, HTML -> Markdown, the result text), against html-to-markdown called
directly on the same page in the same run (the conversion alone, no HTTP).

Budget: the tool keeps at least half the rate of the bare conversion; exit 1 when it does not.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import html_to_markdown

from miniroom.engine.tool import ToolContext
from miniroom.tools.output_folder import OutputFolder
from miniroom.web.offer import web_tools

PAGE_BYTES = 200 * 1024
ROUNDS = 40
BUDGET_RATIO = 0.5


def documentation_page() -> bytes:
    """About 200 KB of HTML shaped like a reference page: headings, prose with links, code and tables."""
    section = (
        "<h2>Section {n}</h2><p>The <a href='/api/{n}'>TaskGroup</a> API runs <b>tasks</b> together; see "
        "<code>create_task()</code> for details, and <em>cancellation</em> rules below.</p>"
        "<pre><code class='language-python'>async with asyncio.TaskGroup() as tg:\n"
        "    tg.create_task(job({n}))"
        "</code></pre><table><tr><th>name</th><th>value</th></tr><tr><td>n</td><td>{n}</td></tr></table>"
        "<ul><li>first point</li><li>second point with <a href='https://example.org/{n}'>a link</a></li></ul>"
    )
    parts: list[str] = []
    n = 0
    while sum(map(len, parts)) < PAGE_BYTES:
        parts.append(section.format(n=n))
        n += 1
    return (
        f"<!doctype html><html><head><title>Docs</title></head><body>{''.join(parts)}</body></html>".encode()
    )


class _Page(BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def direct_rate(html: str) -> float:
    options = html_to_markdown.ConversionOptions(skip_images=True, extract_metadata=False)
    started = time.perf_counter()
    for _ in range(ROUNDS):
        html_to_markdown.convert(html, options)
    return ROUNDS / (time.perf_counter() - started)


async def tool_rate(url: str, project: Path) -> float:
    folder = project / ".miniroom"
    folder.mkdir()
    (folder / "fetch.yml").write_text("services:\n  - name: Direct\n    type: Direct\n", encoding="utf-8")
    scratch = OutputFolder()
    tools, _ = web_tools(project, {}, {"NO_PROXY": "127.0.0.1"}, project / "data", scratch)
    fetch = tools[0]
    context = ToolContext(project)
    try:
        await fetch.execute(fetch.validate({"url": url}), context)  # warm up: imports, first connection
        started = time.perf_counter()
        for _ in range(ROUNDS):
            result = await fetch.execute(fetch.validate({"url": url}), context)
            assert not result.is_error, result.content
        return ROUNDS / (time.perf_counter() - started)
    finally:
        scratch.remove()


def main() -> int:
    page = documentation_page()
    _Page.body = page
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        direct = direct_rate(page.decode())
        with tempfile.TemporaryDirectory() as folder:
            tool = asyncio.run(tool_rate(f"http://127.0.0.1:{server.server_address[1]}/", Path(folder)))
    finally:
        server.shutdown()
    ratio = tool / direct
    verdict = "ok" if ratio >= BUDGET_RATIO else "UNDER BUDGET"
    print(
        f"fetch+convert ({len(page) / 1024:.0f} KB page): fetch tool {tool:,.1f} pages/s | html-to-markdown "
        f"alone {direct:,.1f} pages/s | {ratio:.2f}x (budget ≥ {BUDGET_RATIO}x) {verdict}"
    )
    return 0 if ratio >= BUDGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
