"""A conversation keeps the fetch and search lists it started with, through `miniroom run --continue`: edits
of the files reach new sessions only, and a key written in a file never lands in the session file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import Workspace
from tests.webtools.conftest import write_catalogue
from tests.webtools.servers import Running, serve
from tests.webtools.test_cli import json_records, one_protocol, tool_names
from tests.webtools.test_search import KEY, STAND_INS, vendor

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

LOCAL = "    settings: {AllowPrivateNetwork: true}\n"  # the test site is on 127.0.0.1 (loopback)
A_ONLY = "services:\n  - name: A\n    type: Direct\n" + LOCAL
A_OFF_B_ON = (
    "services:\n  - name: A\n    type: Direct\n    enabled: false\n"
    + LOCAL
    + "  - name: B\n    type: Direct\n"
    + LOCAL
)
BRAVE_BY_VARIABLE = "services:\n  - name: Brave\n    type: Brave\n    settings: {ApiKey: $K}\n"


def session_files(workspace: Workspace) -> list[Path]:
    return sorted(workspace.agent_dir.rglob("*.jsonl"))


def recorded_lists(path: Path) -> dict[str, Any]:
    """The lists the session's `settings` entry recorded."""
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    return dict(next(entry for entry in entries if entry["type"] == "settings")["web"])


def answered_by(stdout: str) -> str:
    end = next(record for record in json_records(stdout) if record["type"] == "tool_end")
    return str(end["details"]["service"])


@one_protocol
def test_a_continued_run_keeps_the_lists_its_session_started_with_and_a_new_one_reads_the_files(
    workspace: Workspace, provider: ScriptedProvider, site: Running
) -> None:
    url = f"{site.url}/page.html"
    write_catalogue(workspace.project, "fetch.yml", A_ONLY)
    provider.script(Reply(text="started"))
    assert workspace.run("run", "hi").returncode == 0
    write_catalogue(workspace.project, "fetch.yml", A_OFF_B_ON)
    write_catalogue(workspace.project, "search.yml", BRAVE_BY_VARIABLE)

    provider.script(Reply(tool_calls=[("fetch", {"url": url})]), Reply(text="fetched"))
    continued = workspace.run("run", "--continue", "--json", "fetch it")
    assert continued.returncode == 0, continued.stderr
    assert "fetch" in tool_names(provider.requests[1].body)
    assert "search" not in tool_names(provider.requests[1].body)
    assert answered_by(continued.stdout) == "A"

    provider.script(Reply(tool_calls=[("fetch", {"url": url})]), Reply(text="fetched anew"))
    fresh = workspace.run("run", "--json", "fetch it")
    assert fresh.returncode == 0, fresh.stderr
    assert {"fetch", "search"} <= set(tool_names(provider.requests[3].body))
    assert answered_by(fresh.stdout) == "B"


@one_protocol
def test_a_session_recorded_without_lists_reads_the_files(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_catalogue(workspace.project, "fetch.yml", A_ONLY)
    provider.script(Reply(text="one"), Reply(text="two"))
    assert workspace.run("run", "hi").returncode == 0
    [path] = session_files(workspace)
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    for entry in entries:
        entry.pop("web", None)  # as a session written before sessions kept the lists
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    write_catalogue(
        workspace.project, "fetch.yml", "services:\n  - name: A\n    type: Direct\n    enabled: false\n"
    )
    assert workspace.run("run", "--continue", "again").returncode == 0
    assert "fetch" not in tool_names(provider.requests[1].body)


@one_protocol
def test_a_key_written_in_the_file_stays_out_of_the_session_and_is_read_from_the_file(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    literal = f"services:\n  - name: Brave\n    type: Brave\n    settings: {{ApiKey: {KEY}}}\n"
    other = (
        "  - name: Other\n    type: SearXNG\n    priority: 1\n    settings: {BaseUrl: 'http://127.0.0.1:9'}\n"
    )
    search = [("search", {"query": "asyncio", "count": 2})]
    with serve(vendor(STAND_INS["Brave"])) as brave:
        workspace.env["MINIROOM_WEB_BASE_URL_BRAVE"] = brave.url
        write_catalogue(workspace.project, "search.yml", literal)
        provider.script(Reply(text="started"))
        assert workspace.run("run", "hi").returncode == 0
        [path] = session_files(workspace)
        assert KEY not in path.read_text()
        [recorded] = recorded_lists(path)["search"]
        assert recorded["settings"] == {}
        assert recorded["fromFile"] == ["ApiKey"]

        write_catalogue(workspace.project, "search.yml", literal + other)
        provider.script(Reply(tool_calls=search), Reply(text="found"))
        continued = workspace.run("run", "--continue", "--json", "search")
        assert continued.returncode == 0, continued.stderr
        assert answered_by(continued.stdout) == "Brave"
        end = next(r for r in json_records(continued.stdout) if r["type"] == "tool_end")
        assert end["details"]["failed"] == []  # Other joined the file, not this conversation
        assert len(brave.seen) == 1

        write_catalogue(workspace.project, "search.yml", "services:\n" + other)
        provider.script(Reply(tool_calls=search), Reply(text="no key"))
        keyless = workspace.run("run", "--continue", "search again")
        assert keyless.returncode == 0, keyless.stderr
        assert "had its ApiKey written in the file" in keyless.stderr
        tool_result = provider.requests[-1].body["messages"][-1]["content"]
        assert "Brave: setting ApiKey is required and has no value" in tool_result
        assert len(brave.seen) == 1
    assert KEY not in "".join(path.read_text() for path in session_files(workspace))
