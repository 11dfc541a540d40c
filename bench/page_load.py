"""Page load: the web chat opened in Chromium until it shows its room (100 messages, agent replies with tool
calls, retries and spend), against loading one static file from the same server in the same run.

Each load is a new browser context (nothing cached), timed on the page's own clock from the start of the
navigation to the moment it says it is ready (`body[data-ready]`, with the `miniroom:ready` performance mark),
and the static file to its load event; the median of the runs counts. The driver waits for the page's load
event and reads the mark after it, so none of its own scripts run in the page while it loads. Its wall time
from `goto` to that load event and reading is printed too: round trips that are the bench's, not the page's.
Budget: the page within 300 ms; exit 1 when over.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from playwright.async_api import Browser, Page, async_playwright

from miniroom.server import build_server, create_app
from miniroom.transports.embedded import RoomStore

BUDGET_MS = 300.0
RUNS = 15
MESSAGES = 100
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]
AGENT = "@helper:miniroom.local"
# When the page said it is ready: at once if it already has, else when it does (with its room drawn).
READY_MARK = """new Promise((resolve) => {
  const ready = () => document.querySelector("body[data-ready='1'] #timeline .message")
    && performance.getEntriesByName("miniroom:ready")[0];
  const check = () => (ready() ? resolve(ready().startTime) : requestAnimationFrame(check));
  check();
})"""


def fill(store: RoomStore) -> None:
    """A lobby with questions and agent replies that carry tool calls, a retry and their spend."""
    room = store.ensure_room("lobby", name="Lobby")
    store.join(room.room_id, AGENT, "Helper")
    retry = "⚠ p/m: attempt 1 of 3 failed (HTTP 429); retrying in 1 s"
    for number in range(MESSAGES // 2):
        store.append(
            room.room_id, store.local_user_id, "m.room.message", {"msgtype": "m.text", "body": f"q {number}"}
        )
        turn = {
            "state": "done",
            "retries": [
                {
                    "model": "p/m",
                    "attempt": 1,
                    "max_attempts": 3,
                    "cause": "HTTP 429",
                    "wait_seconds": 1,
                    "line": retry,
                }
            ],
            "tools": [
                {"id": f"c{number}", "name": "read", "summary": f"Read src/m{number}.py", "status": "done"}
            ],
            "usage": {
                "input": 1200,
                "output": 80,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 1280,
                "cost": {"total": "0.002000"},
            },
        }
        body = f"{retry}\n🔧 Read src/m{number}.py\n\nThe **answer** {number}, with `code` and a [link](https://example.org)."
        store.append(
            room.room_id,
            AGENT,
            "m.room.message",
            {"msgtype": "m.text", "body": body, "io.miniroom.turn": turn},
        )


async def timed(browser: Browser, load: Callable[[Page], Awaitable[float]]) -> tuple[float, float]:
    """The load's time on the page's clock, and the driver's wall time, in ms."""
    context = await browser.new_context()
    page = await context.new_page()
    started = time.perf_counter()
    in_page = await load(page)
    elapsed = (time.perf_counter() - started) * 1000
    await context.close()
    return in_page, elapsed


def medians(timings: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(t[0] for t in timings), statistics.median(t[1] for t in timings)


async def measure(url: str) -> tuple[tuple[float, float], tuple[float, float]]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)

        async def static_file(page: Page) -> float:
            await page.goto(f"{url}/static/app.css", wait_until="load")
            return float(await page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))

        async def chat_page(page: Page) -> float:
            # Waiting on the browser's own load event, not on a selector, keeps Playwright's injected
            # script and its polling off the page's main thread while the page loads (30-40 ms of it).
            await page.goto(f"{url}/?room=lobby", wait_until="load")
            return float(await page.evaluate(READY_MARK))

        await timed(browser, chat_page)  # warm-up: the server's first answers and Chromium's first tab
        static = [await timed(browser, static_file) for _ in range(RUNS)]
        chat = [await timed(browser, chat_page) for _ in range(RUNS)]
        await browser.close()
    return medians(static), medians(chat)


def serve(folder: str) -> None:
    """The server side, in a process of its own as `miniroom serve` is: it prints its port, then serves."""
    store = RoomStore.open(Path(folder))
    fill(store)
    server = build_server(create_app(store), port=0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    print(server.servers[0].sockets[0].getsockname()[1], flush=True)
    sys.stdin.read()  # until the bench closes the pipe
    server.should_exit = server.force_exit = True
    thread.join(timeout=10)
    store.close()


def main() -> int:
    # The server runs apart from the browser's driver, so neither slows the other through one interpreter.
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, __file__, "--serve", folder]
        with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as server:
            assert server.stdin is not None
            assert server.stdout is not None
            port = int(server.stdout.readline())
            try:
                (static, static_wall), (chat, chat_wall) = asyncio.run(measure(f"http://127.0.0.1:{port}"))
            finally:
                server.stdin.close()
                server.wait(timeout=30)
    verdict = "ok" if chat <= BUDGET_MS else "OVER BUDGET"
    print(
        f"page load: static file {static:.0f} ms | chat page with {MESSAGES} messages {chat:.0f} ms "
        f"(median of {RUNS}, navigation to ready; budget {BUDGET_MS:.0f} ms) {verdict} | driver's wall "
        f"time: {static_wall:.0f} ms and {chat_wall:.0f} ms"
    )
    return 0 if chat <= BUDGET_MS else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
        sys.exit(0)
    sys.exit(main())
