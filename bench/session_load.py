"""Session load: build a 100,000-entry session file, then load and resume it. Budget: under 1 s.

Also checks that appending stays constant-time as the file grows.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from miniroom.engine.session import Session
from miniroom.llm.messages import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

ENTRIES = 100_000
BUDGET_SECONDS = 1.0


def _write(folder: Path) -> tuple[Path, float, float]:
    session = Session.create(folder, folder)
    timings = []
    for turn in range(ENTRIES // 4):
        started = time.perf_counter()
        session.append_message(UserMessage.of_text(f"question {turn}: please look at src/module_{turn}.py"))
        call = ToolCall(f"call_{turn}", "read", {"path": f"src/module_{turn}.py"})
        session.append_message(AssistantMessage([call], "p", "m", "anthropic-messages", Usage(100, 20)))
        session.append_message(
            ToolResultMessage(f"call_{turn}", "read", [TextContent("def f():\n    return 1\n")])
        )
        session.append_message(AssistantMessage([TextContent(f"answer {turn}")], usage=Usage(120, 30)))
        timings.append(time.perf_counter() - started)
    session.close()
    first, last = sum(timings[:1000]) / 1000, sum(timings[-1000:]) / 1000
    return session.path, first, last


def load_and_resume(path: Path) -> tuple[float, int, int]:
    """What `miniroom run --continue` does with the file before its first request."""
    started = time.perf_counter()
    session = Session.load(path)
    messages = session.messages()
    session.repair_interrupted_tool_calls()
    return time.perf_counter() - started, len(session.entries), len(messages)


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--load":  # the child: a fresh process, as a resume is
        elapsed, entries, messages = load_and_resume(Path(sys.argv[2]))
        print(f"{elapsed} {entries} {messages}")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        path, first_append, last_append = _write(Path(folder))
        size_mb = path.stat().st_size / 1e6
        child = subprocess.run(
            [sys.executable, __file__, "--load", str(path)], capture_output=True, text=True
        )
        elapsed_text, entries, messages = child.stdout.split()
    elapsed = float(elapsed_text)
    verdict = "ok" if elapsed < BUDGET_SECONDS else "OVER BUDGET"
    print(
        f"session load: {int(entries):,} entries ({size_mb:.1f} MB) loaded and resumed in a fresh process in "
        f"{elapsed * 1000:.0f} ms ({int(messages):,} messages; budget {BUDGET_SECONDS:g} s) {verdict} | "
        f"append: {first_append * 1e6 / 4:.1f} µs/entry at the start, "
        f"{last_append * 1e6 / 4:.1f} µs/entry at 100k"
    )
    return 0 if elapsed < BUDGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
