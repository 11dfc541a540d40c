"""Session load: build a 100,000-entry session file, as a long conversation leaves it (compacted every 500
entries), then resume it in a fresh process. Budget: under 1 s of CPU.

A resume reads only the model's context, so its cost tracks the context, not the file's history; reading
every line (`sessions show`) is shown beside it. Also checks that appending stays constant-time.
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
COMPACT_EVERY = 500  # entries; each compaction keeps the newest 100 of them
KEPT = 100
BUDGET_SECONDS = 1.0


def _turn(session: Session, turn: int) -> None:
    session.append_message(UserMessage.of_text(f"question {turn}: please look at src/module_{turn}.py"))
    call = ToolCall(f"call_{turn}", "read", {"path": f"src/module_{turn}.py"})
    session.append_message(AssistantMessage([call], "p", "m", "anthropic-messages", Usage(100, 20)))
    session.append_message(
        ToolResultMessage(f"call_{turn}", "read", [TextContent("def f():\n    return 1\n")])
    )
    session.append_message(AssistantMessage([TextContent(f"answer {turn}")], usage=Usage(120, 30)))


def _write(folder: Path) -> tuple[Path, float, float]:
    session = Session.create(folder, folder)
    timings: list[float] = []
    ids: list[str | None] = []
    turn = 0
    while len(ids) < ENTRIES:
        started = time.perf_counter()
        _turn(session, turn)
        timings.append(time.perf_counter() - started)
        ids.extend([session.leaf_id] * 4)
        turn += 1
        if len(ids) % COMPACT_EVERY < 4:
            session.append(
                "compaction", summary=f"summary {turn}", firstKeptEntryId=ids[-KEPT], tokensBefore=1
            )
            ids.append(session.leaf_id)
    session.close()
    first, last = sum(timings[:250]) / 250, sum(timings[-250:]) / 250
    return session.path, first, last


def load_and_resume(path: Path, whole: bool) -> tuple[float, float, int]:
    """What `miniroom run --continue` does with the file before its first request (CPU and wall seconds,
    messages in the context); with `whole`, what `sessions show` reads."""
    cpu, wall = time.process_time(), time.perf_counter()
    session = Session.load(path, whole=whole)
    if whole:
        messages = session.history()
    else:
        messages = session.messages()
        session.total_usage()
        session.latest("settings")
        session.repair_interrupted_tool_calls()
    return time.process_time() - cpu, time.perf_counter() - wall, len(messages)


def _in_a_fresh_process(path: Path, whole: bool) -> tuple[float, float, int]:
    command = [sys.executable, __file__, "--load", str(path), "whole" if whole else "resume"]
    child = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600)
    cpu, wall, messages = child.stdout.split()
    return float(cpu), float(wall), int(messages)


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--load":  # the child: a fresh process, as a resume is
        print(*load_and_resume(Path(sys.argv[2]), sys.argv[3] == "whole"))
        return 0
    with tempfile.TemporaryDirectory() as folder:
        path, first_append, last_append = _write(Path(folder))
        size_mb = path.stat().st_size / 1e6
        cpu, wall, messages = _in_a_fresh_process(path, whole=False)
        whole_cpu, _, history = _in_a_fresh_process(path, whole=True)
    verdict = "ok" if cpu < BUDGET_SECONDS else "OVER BUDGET"
    print(
        f"session load: {ENTRIES:,} entries ({size_mb:.1f} MB, compacted every {COMPACT_EVERY}) resumed in a "
        f"fresh process in {cpu * 1000:.0f} ms CPU ({wall * 1000:.0f} ms wall; {messages} messages in the "
        f"context; budget {BUDGET_SECONDS:g} s) {verdict} | every line read (sessions show, {history:,} "
        f"messages): {whole_cpu * 1000:.0f} ms CPU | append: {first_append * 1e6 / 4:.1f} µs/entry at the "
        f"start, {last_append * 1e6 / 4:.1f} µs/entry at 100k"
    )
    return 0 if cpu < BUDGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
