"""The background task store: kept across processes, written whole, tasks of a dead process closed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from miniroom.agent.subagents.store import (
    SHUTDOWN_NOTE,
    TaskRecord,
    TaskStore,
    close_dead,
    owner_alive,
    process_start,
    this_process,
)
from miniroom.llm.messages import Usage


def test_tasks_are_numbered_kept_and_read_back(tmp_path: Path) -> None:
    store = TaskStore.of_session(tmp_path, "s1")
    first = store.add("run tests", "run the whole suite", "call_1", None)
    second = store.add("lint", "run ruff", "call_2", "safe")
    assert (first.number, second.number) == (1, 2)
    first.state, first.answer, first.usage = "done", "3 passed", Usage(input=5, output=2, cost=0.25)
    store.save()
    again = TaskStore.of_session(tmp_path, "s1")
    assert again.path == tmp_path / "agent-tasks" / "s1.json"
    read = again.get(1)
    assert read is not None
    assert (read.state, read.answer, read.usage.input, read.usage.cost) == ("done", "3 passed", 5, 0.25)
    assert again.get(2) == second
    assert not list(again.path.parent.glob(".s1.json.*"))  # no temporary file left behind


def test_a_damaged_store_is_kept_aside_and_the_chat_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "agent-tasks" / "s1.json"
    path.parent.mkdir()
    path.write_text('{"tasks": [{"number": 1, "state": "bogus"', encoding="utf-8")
    store = TaskStore.of_session(tmp_path, "s1")
    assert store.records == {}
    assert path.with_name("s1.json.damaged").read_text().startswith('{"tasks"')


def test_this_process_is_alive_and_a_finished_one_is_not() -> None:
    assert owner_alive(this_process())
    child = subprocess.Popen(["true"])
    started = process_start(child.pid)
    child.wait()
    assert not owner_alive({"pid": child.pid, "started": started})
    # the same number handed to a later process is not the owner
    assert not owner_alive({"pid": os.getpid(), "started": "1"})
    assert not owner_alive({})


def test_only_unfinished_tasks_of_dead_owners_are_closed_with_the_note() -> None:
    dead, alive = {"pid": 1_000_000_000}, this_process()
    records = [
        TaskRecord(1, "a", "p", "c1", state="running", owner=dead),
        TaskRecord(2, "b", "p", "c2", state="queued", owner=dead),
        TaskRecord(3, "c", "p", "c3", state="done", owner=dead),
        TaskRecord(4, "d", "p", "c4", state="running", owner=alive),
    ]
    closed = close_dead(records, owner_alive)
    assert [record.number for record in closed] == [1, 2]
    assert [(r.state, r.note) for r in records] == [
        ("stopped", SHUTDOWN_NOTE),
        ("stopped", SHUTDOWN_NOTE),
        ("done", None),
        ("running", None),
    ]
    assert all(record.finished for record in closed)


def test_the_file_is_plain_json_a_person_can_read(tmp_path: Path) -> None:
    store = TaskStore.of_session(tmp_path, "s1")
    store.add("run tests", "run the whole suite", "call_1", None)
    data = json.loads(store.path.read_text(encoding="utf-8"))
    assert data["tasks"][0]["description"] == "run tests"
    assert data["tasks"][0]["state"] == "queued"
    assert data["tasks"][0]["owner"]["pid"] == os.getpid()
