"""matrix-nio against mautrix, measured: import time, memory after connecting, send and sync throughput.

Starts a throwaway Synapse on loopback (tests/matrix/synapse_server.py); each library runs in its own
interpreter so imports and memory do not mix. Run: `.venv/bin/python bench/matrix_client_choice.py`.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MESSAGES = 200
SYNC_LIMIT = 100  # Synapse caps a sync timeline at filter_timeline_limit, 100 by default
TOKEN_VARIABLE = "BENCH_MATRIX_TOKEN"
IMPORT_RUNS = 7
WORKER_TIMEOUT = 300.0
IMPORTS = {"bare": "", "nio": "nio", "mautrix": "mautrix.client"}


def rss_mib() -> float:
    """Peak resident memory of this process (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run_nio(url: str, user: str, token: str) -> dict[str, float]:
    import nio

    client = nio.AsyncClient(url, user)
    client.access_token, client.user_id = token, user
    try:
        await client.whoami()
        await client.sync(timeout=0)
        figures = {"rss_connected_mib": rss_mib()}
        room = await client.room_create()
        assert isinstance(room, nio.RoomCreateResponse), room
        since = (await client.sync(timeout=0)).next_batch
        start = time.perf_counter()
        for index in range(MESSAGES):
            await client.room_send(room.room_id, "m.room.message", {"msgtype": "m.text", "body": f"m{index}"})
        figures["send_per_s"] = MESSAGES / (time.perf_counter() - start)
        limit = {"room": {"timeline": {"limit": SYNC_LIMIT}}}
        start = time.perf_counter()
        synced = await client.sync(timeout=0, since=since, sync_filter=limit)
        figures["sync_ms"] = (time.perf_counter() - start) * 1000
        assert isinstance(synced, nio.SyncResponse), synced
        timeline = synced.rooms.join[room.room_id].timeline
        assert len(timeline.events) == SYNC_LIMIT, len(timeline.events)
        start = time.perf_counter()
        page = await client.room_messages(room.room_id, limit=MESSAGES)
        figures["messages_ms"] = (time.perf_counter() - start) * 1000
        assert isinstance(page, nio.RoomMessagesResponse)
        assert len(page.chunk) == MESSAGES
        figures["rss_end_mib"] = rss_mib()
        return figures
    finally:
        await client.close()


async def run_mautrix(url: str, user: str, token: str) -> dict[str, float]:
    from mautrix.api import HTTPAPI
    from mautrix.client import ClientAPI
    from mautrix.types import EventType, Filter, PaginationDirection, RoomEventFilter, RoomFilter, UserID

    api = ClientAPI(UserID(user), api=HTTPAPI(url, token))
    try:
        await api.whoami()
        await api.sync(timeout=0)
        figures = {"rss_connected_mib": rss_mib()}
        room_id = await api.create_room()
        since = (await api.sync(timeout=0))["next_batch"]
        start = time.perf_counter()
        for index in range(MESSAGES):
            content = {"msgtype": "m.text", "body": f"m{index}"}
            await api.send_message_event(room_id, EventType.ROOM_MESSAGE, content)  # type: ignore[arg-type]
        figures["send_per_s"] = MESSAGES / (time.perf_counter() - start)
        limit = Filter(room=RoomFilter(timeline=RoomEventFilter(limit=SYNC_LIMIT)))
        filter_id = await api.create_filter(limit)
        start = time.perf_counter()
        synced = await api.sync(since=since, timeout=0, filter_id=filter_id)
        figures["sync_ms"] = (time.perf_counter() - start) * 1000
        assert len(synced["rooms"]["join"][room_id]["timeline"]["events"]) == SYNC_LIMIT
        start = time.perf_counter()
        page = await api.get_messages(room_id, PaginationDirection.BACKWARD, limit=MESSAGES)
        figures["messages_ms"] = (time.perf_counter() - start) * 1000
        assert len(cast(Any, page).events) == MESSAGES  # mypy cannot read this keyword NamedTuple
        figures["rss_end_mib"] = rss_mib()
        return figures
    finally:
        await api.api.session.close()


def import_figures(module: str) -> tuple[float, float]:
    """Median wall time (ms) of a fresh interpreter importing `module`, and its `-X importtime` total (ms)."""
    walls, totals = [], []
    for _ in range(IMPORT_RUNS):
        start = time.perf_counter()
        command = [sys.executable, "-X", "importtime", "-c", f"import {module}" if module else "pass"]
        done = subprocess.run(command, check=True, capture_output=True, text=True, timeout=60)
        walls.append(time.perf_counter() - start)
        top = [line for line in done.stderr.splitlines() if line.endswith(f"| {module}")]
        totals.append(int(top[-1].split("|")[1]) / 1000 if top else 0.0)
    return statistics.median(walls) * 1000, statistics.median(totals)


def worker_figures(library: str, url: str, user: str, token: str) -> dict[str, Any]:
    command = [sys.executable, __file__, "--worker", library, url, user]
    environment = {**os.environ, TOKEN_VARIABLE: token}  # not argv: `ps` would show it
    done = subprocess.run(command, capture_output=True, text=True, timeout=WORKER_TIMEOUT, env=environment)
    if done.returncode != 0:
        raise RuntimeError(f"the {library} worker failed:\n{done.stderr}")
    return dict(json.loads(done.stdout))


def main() -> int:
    from tests.matrix.synapse_server import Synapse

    imports = {name: import_figures(module) for name, module in IMPORTS.items()}
    with tempfile.TemporaryDirectory() as folder, Synapse.start(Path(folder) / "synapse") as synapse:
        results = {}
        for library in ("nio", "mautrix"):
            user, token = synapse.register(f"bench_{library}")
            results[library] = worker_figures(library, synapse.url, user, token)
    bare_wall = imports["bare"][0]
    print(f"bare python: start {bare_wall:.0f} ms, peak rss {worker_figures_bare():.1f} MiB")
    for library, figures in results.items():
        wall, total = imports[library]
        print(
            f"{library:8} import +{wall - bare_wall:4.0f} ms (-X importtime {total:4.0f} ms) | "
            f"rss connected {figures['rss_connected_mib']:5.1f} MiB, after {figures['rss_end_mib']:5.1f} MiB"
        )
        print(
            f"{'':8} send {figures['send_per_s']:4.0f} msg/s | sync of {SYNC_LIMIT} events "
            f"{figures['sync_ms']:4.0f} ms | /messages of {MESSAGES} {figures['messages_ms']:4.0f} ms"
        )
    return 0


def worker_figures_bare() -> float:
    statement = "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    done = subprocess.run([sys.executable, "-c", statement], check=True, capture_output=True, timeout=60)
    return float(done.stdout)


def worker(library: str, url: str, user: str) -> int:
    run = run_nio if library == "nio" else run_mautrix
    print(json.dumps(asyncio.run(run(url, user, os.environ[TOKEN_VARIABLE]))))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        sys.exit(worker(*sys.argv[2:5]))
    sys.exit(main())
