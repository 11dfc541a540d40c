"""`miniroom run` as a user runs it: a subprocess talking to the scripted provider, in both protocols."""

from __future__ import annotations

import json
from pathlib import Path

from miniroom.engine.session_index import latest_session_path
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import Workspace


def _tool_results(body: dict[str, object]) -> str:
    """All tool-result text of a request body, whatever the protocol."""
    return json.dumps(body["messages"])


def test_a_task_writes_a_file_runs_it_and_answers_with_its_output(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(tool_calls=[("write", {"path": "hello.py", "content": "print(6 * 7, 'from hello')\n"})]),
        Reply(tool_calls=[("bash", {"command": "python3 hello.py"})]),
        Reply(text="It printed: 42 from hello"),
    )
    result = workspace.run("run", "write hello.py and run it")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It printed: 42 from hello\n"
    assert (workspace.project / "hello.py").read_text() == "print(6 * 7, 'from hello')\n"
    requests = provider.requests
    assert len(requests) == 3
    assert "42 from hello" in _tool_results(requests[2].body)  # the real output of the real command
    assert "write hello.py and run it" in json.dumps(requests[0].body)


def test_continue_resumes_with_the_earlier_turns_in_the_request(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="The capital is Paris."), Reply(text="It has about 2 million people."))
    assert workspace.run("run", "capital of France?").returncode == 0
    second = workspace.run("run", "--continue", "how many people live there?")
    assert second.returncode == 0, second.stderr
    assert second.stdout == "It has about 2 million people.\n"
    resumed = json.dumps(provider.requests[1].body)
    assert "capital of France?" in resumed
    assert "The capital is Paris." in resumed
    assert "how many people live there?" in resumed


def test_every_request_carries_the_session_id_header(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="ok"))
    result = workspace.run("run", "--json", "hi")
    session = json.loads(result.stdout.splitlines()[0])
    assert session["type"] == "session"
    assert provider.requests[0].headers["x-agent-session"] == session["id"]


def test_json_prints_one_typed_event_per_line(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(
        Reply(text="Looking.", tool_calls=[("ls", {"path": "."})], usage=(100, 10, 0, 0)),
        Reply(text="Empty folder.", usage=(150, 5, 50, 0)),
    )
    result = workspace.run("run", "--json", "what is here?")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    types = [r["type"] for r in records]
    assert types[0] == "session"
    assert types[-1] == "turn_end"
    for expected in ("text_delta", "tool_start", "tool_end", "usage"):
        assert expected in types
    start = next(r for r in records if r["type"] == "tool_start")
    assert (start["name"], start["arguments"]) == ("ls", {"path": "."})
    end = records[-1]
    assert end["text"] == "Empty folder."
    assert end["usage"]["input"] == 250
    assert end["usage"]["cacheRead"] == 50


def test_session_id_resumes_a_chosen_session(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="first"), Reply(text="second"), Reply(text="third"))
    first = json.loads(workspace.run("run", "--json", "one").stdout.splitlines()[0])["id"]
    workspace.run("run", "two")  # a newer, unrelated session
    result = workspace.run("run", "--session", first[:8], "three")
    assert result.returncode == 0, result.stderr
    body = json.dumps(provider.requests[2].body)
    assert "one" in body
    assert '"two"' not in body
    listing = workspace.run("sessions", "list")
    assert first in listing.stdout
    shown = workspace.run("sessions", "show", first)
    assert "cost:" in shown.stdout


def _damage_middle_line(path: Path) -> int:
    """Change one byte in the middle line of a session file; the line's number."""
    lines = path.read_bytes().split(b"\n")
    middle = len(lines) // 2
    lines[middle] = lines[middle].replace(b'"id"', b'"id\x01', 1)
    path.write_bytes(b"\n".join(lines))
    return middle + 1


def test_a_damaged_session_is_named_and_list_and_show_agree(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(*[Reply(text=f"answer {n}") for n in range(5)])
    for n in range(4):
        assert workspace.run("run", *(["--continue"] if n else []), f"question {n}").returncode == 0
    path = latest_session_path(workspace.agent_dir, workspace.project)
    assert path is not None
    line = _damage_middle_line(path)
    warning = f"{path} line {line} is damaged and was skipped"
    listing = workspace.run("sessions", "list")
    shown = workspace.run("sessions", "show", path.stem.split("_", 1)[1])
    assert warning in listing.stderr
    assert warning in shown.stderr
    printed = [row for row in shown.stdout.splitlines() if row.startswith(("user:", "assistant ("))]
    assert f"{len(printed)} msgs" in listing.stdout
    assert printed[0] == "user: question 0"  # nothing before the damaged line was lost
    resumed = workspace.run("run", "--continue", "question 4")
    assert resumed.returncode == 0, resumed.stderr
    assert warning in resumed.stderr
    assert "question 0" in json.dumps(provider.requests[-1].body)
