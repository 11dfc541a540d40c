"""What adaptive participation's judgment adds to an answer, in one run: a message in a two-person thread,
answered after a scripted LLM judge approves, against the same message mentioning the agent (no judgment).

Each message is handled by a real room runtime on embedded rooms, through to the agent's finished reply;
the scripted provider answers every request at once, so the difference is miniroom's judgment path (the
thread read, the request built, one model exchange, the outcome logged) plus one HTTP round trip.
"""

from __future__ import annotations

import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from miniroom.agent.config_yaml_check import load_config
from miniroom.rooms.runtime import RoomRuntime
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.transports.embedded.store import RoomStore
from miniroom.transports.embedded.transport import EmbeddedTransport

MESSAGES = 40  # of each kind, interleaved
BOB = "@bob:miniroom.local"


def _config(folder: Path, provider: ScriptedProvider) -> Path:
    variables = [f"MINI_BASE_URL={provider.url}", "MINI_API=anthropic-messages", "MINI_API_KEY=sk-bench"]
    judge = {"provider": "llm", "model": "fast", "timeout_seconds": 30}
    config = {
        "models": {"fast": {"model": "scripted/bench", "variables": variables}},
        "agents": {
            "helper": {
                "display_name": "Helper",
                "model": "fast",
                "rooms": ["lobby"],
                "participation": {"debounce_seconds": 0, "judgment": judge},
            }
        },
        "rooms": {"lobby": {"display_name": "Lobby"}},
    }
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


async def _answer(runtime: RoomRuntime, store: RoomStore, room: str, content: dict[str, Any]) -> float:
    """Seconds from handling Bob's message to the end of every turn and judgment it started."""
    event = store.append(room, BOB, "m.room.message", content)
    start = time.perf_counter()
    await runtime.handle(event)
    await runtime.idle()
    return time.perf_counter() - start


async def _measure(folder: Path, provider: ScriptedProvider) -> tuple[list[float], list[float]]:
    store = RoomStore.open(folder / "data")
    env = {**os.environ, "MINI_AGENT_DIR": str(folder / "mini"), "NO_PROXY": "127.0.0.1"}
    runtime = RoomRuntime(
        load_config(_config(folder, provider)), EmbeddedTransport(store), folder / "data", env=env
    )
    await runtime.start()
    room = runtime.transport.room_id("lobby") or ""
    store.join(room, BOB, "Bob")
    root = store.append(room, store.local_user_id, "m.room.message", {"msgtype": "m.text", "body": "plans?"})
    await runtime.handle(root)
    await runtime.idle()
    thread = {"rel_type": "m.thread", "event_id": root["event_id"], "is_falling_back": True}
    helper = runtime.transport.agent_user_id("helper")
    judged, mentioned = [], []
    for number in range(MESSAGES):
        untagged = {"msgtype": "m.text", "body": f"what about step {number}?", "m.relates_to": thread}
        judged.append(await _answer(runtime, store, room, untagged))
        tagged = {**untagged, "m.mentions": {"user_ids": [helper]}}
        mentioned.append(await _answer(runtime, store, room, tagged))
    await runtime.stop()
    store.close()
    return judged, mentioned


def main() -> int:
    logging.disable(logging.WARNING)
    with ScriptedProvider() as provider, tempfile.TemporaryDirectory() as folder:
        provider.repeat(Reply(text="yes", usage=(100, 1, 0, 0)))  # the judge approves; the agent says "yes"
        judged, mentioned = asyncio.run(_measure(Path(folder), provider))
        requests = len(provider.requests)
    judge_ms, plain_ms = statistics.median(judged) * 1000, statistics.median(mentioned) * 1000
    detail = f"median {judge_ms:.1f} ms judged and answered, {plain_ms:.1f} ms mentioned and answered"
    print(
        f"judgment latency overhead: {judge_ms - plain_ms:.1f} ms per message "
        f"({detail}; {MESSAGES} of each, {requests} requests)"
    )
    return 0 if requests == 1 + 3 * MESSAGES else 1


if __name__ == "__main__":
    sys.exit(main())
