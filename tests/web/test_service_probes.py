"""`miniroom serve` run like a service: `/healthz`, `/readyz` and a Prometheus `/metrics` that counts the
turns just run, read with the `prometheus_client` parser."""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

import httpx
import pytest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from miniroom.server import create_app
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.transports.embedded import RoomStore
from tests.runtime.serve_process import turn_state
from tests.web.chat_pages import serving
from tests.web.conftest import serve_in_thread

HELPER = "@helper:miniroom.local"
TOKEN = "probe-test-token-0123456789"


def scrape(base: str, **headers: str) -> dict[str, Metric]:
    response = httpx.get(f"{base.rstrip('/')}/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {family.name: family for family in text_string_to_metric_families(response.text)}


def total(families: dict[str, Metric], family: str, sample: str = "", **labels: str) -> float:
    """The sum of `family`'s samples named `sample` (default: the family's own name) with these labels."""
    name = sample or family
    return sum(
        s.value
        for s in families[family].samples
        if s.name == name and all(s.labels.get(key) == value for key, value in labels.items())
    )


def turns_counted(base: str, count: int) -> bool:
    return total(scrape(base), "miniroom_turns", "miniroom_turns_total") == count


@pytest.mark.e2e  # a `miniroom serve`
def test_metrics_count_the_turns_requests_tokens_and_retries_just_run(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply.error(500, "api_error", "try again"),
        Reply(text="One.", usage=(1200, 30, 400, 0)),
        Reply(text="Two.", usage=(2500, 70, 0, 100)),
        Reply(text="Three.", usage=(300, 10, 0, 0)),
    )
    with serving(tmp_path, provider, retry="retryIntervalSeconds: 1\nmaxAttempts: 2\n") as served:
        for count, question in enumerate(("first", "second", "third"), start=1):
            served.post(f"{question} question")
            served.wait_for(partial(turns_counted, served.base, count), f"turn {count} counted")
        replies = served.replies_by(HELPER)
        assert [turn_state(served.shown(reply)) for reply in replies] == ["done"] * 3
        families = scrape(served.base)
        with httpx.stream("GET", f"{served.base}api/stream") as stream:
            lines = stream.iter_lines()  # kept: a dropped iterator closes the response
            assert next(lines) == "retry: 1000"  # the stream's opening line: it is open
            streaming = scrape(served.base)
    assert total(families, "miniroom_turns", "miniroom_turns_total", agent="helper", outcome="done") == 3
    assert total(families, "miniroom_model_requests", "miniroom_model_requests_total", agent="helper") == 4
    assert total(families, "miniroom_retries", "miniroom_retries_total", agent="helper") == 1
    tokens = {
        kind: total(families, "miniroom_tokens", "miniroom_tokens_total", agent="helper", kind=kind)
        for kind in ("input", "output", "cache_read", "cache_write")
    }
    assert tokens == {"input": 4000, "output": 110, "cache_read": 400, "cache_write": 100}
    assert "miniroom_cost_usd" in families
    assert families["miniroom_judgment_seconds"].type == "histogram"
    assert total(families, "miniroom_turns_waiting") == 0
    assert total(families, "miniroom_event_streams") == 0
    assert total(streaming, "miniroom_event_streams") == 1


def test_the_probes_answer_without_the_token_and_metrics_needs_it(tmp_path: Path) -> None:
    store = RoomStore.open(tmp_path / "data")
    try:
        with serve_in_thread(create_app(store, api_token=TOKEN)) as base:
            assert httpx.get(f"{base}/healthz").text == "ok\n"
            # A probe reaches the process by its address, under a host name the server does not know.
            ready = httpx.get(f"{base}/readyz", headers={"Host": "10.1.2.3:8765"})
            assert (ready.status_code, ready.text) == (200, "ready\n")
            wrong = httpx.get(f"{base}/metrics", headers={"Authorization": "Bearer not-the-token"})
            assert wrong.status_code == 401
            assert "wrong API token" in wrong.json()["error"]
            assert httpx.get(f"{base}/metrics").status_code == 401
            families = scrape(base, Authorization=f"Bearer {TOKEN}")
            assert total(families, "miniroom_turns", "miniroom_turns_total") == 0
    finally:
        store.close()


def test_readyz_says_why_when_the_room_database_is_gone(tmp_path: Path) -> None:
    store = RoomStore.open(tmp_path / "data")
    try:
        with serve_in_thread(create_app(store)) as base:
            assert httpx.get(f"{base}/readyz").status_code == 200
            shutil.move(tmp_path / "data", tmp_path / "moved")
            gone = httpx.get(f"{base}/readyz")
            assert gone.status_code == 503
            assert gone.text.startswith(f"not ready: the room database {tmp_path / 'data'}")
            assert "is gone (was the data folder moved or deleted?)" in gone.text
            assert httpx.get(f"{base}/healthz").status_code == 200  # alive, only not ready
            shutil.move(tmp_path / "moved", tmp_path / "data")
            assert httpx.get(f"{base}/readyz").status_code == 200
    finally:
        store.close()
