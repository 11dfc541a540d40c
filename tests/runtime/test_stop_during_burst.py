"""`miniroom serve` stopped (SIGTERM) while messages pour in: it ends cleanly, nothing in its log but lines
it means to write (no traceback from a store closed under a request or a turn still using it)."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.runtime.serve_process import SERVING, ServeProcess
from tests.runtime.support import agent_entry, write_config

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

POSTERS = 6
ROUNDS = 5


def post_until_refused(serve: ServeProcess, posted: list[int], lock: threading.Lock) -> None:
    with httpx.Client(timeout=30) as client:
        for number in range(10_000):
            try:
                response = client.post(
                    f"{serve.base}api/rooms/lobby/messages", json={"body": f"@helper note {number}"}
                )
            except httpx.HTTPError:
                return  # the server stopped listening
            if response.status_code != 201:
                return
            with lock:
                posted.append(number)


def burst_then_sigterm(serve: ServeProcess, provider: ScriptedProvider) -> None:
    """Start serve, post from several threads at once, and SIGTERM it once the agent is answering."""
    answered = len(provider.requests)
    serve.start()
    posted: list[int] = []
    lock = threading.Lock()
    posters = [
        threading.Thread(target=post_until_refused, args=(serve, posted, lock)) for _ in range(POSTERS)
    ]
    try:
        for poster in posters:
            poster.start()
        serve.wait_for(
            lambda: len(posted) >= 40 and len(provider.requests) > answered, "a burst, the agent answering"
        )
        assert serve.stop() == 0
    finally:
        serve.kill()
        for poster in posters:
            poster.join()


def test_sigterm_in_a_burst_of_messages_stops_without_a_traceback(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(*[Reply(text=f"noted {number}") for number in range(2000)])
    config = write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    serve = ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log")
    for _ in range(ROUNDS):  # a stop cut a request or a turn short in about one round of four
        burst_then_sigterm(serve, provider)
    log = serve.output()
    assert log.count(SERVING) == ROUNDS
    assert "Traceback" not in log, log
    assert "closed database" not in log, log
