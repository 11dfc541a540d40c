"""Subagents and background tasks through `miniroom run`, `chat` and `sessions`, as real processes against the
scripted provider, which tells parent and children apart by their first user message."""

from __future__ import annotations

import json
import signal

import pytest

from miniroom.agent.subagents.store import SHUTDOWN_NOTE, TaskStore
from miniroom.engine.session import INTERRUPTED_TOOL_TEXT, Session
from miniroom.engine.session_index import child_sessions, latest_session_path
from miniroom.llm.messages import ToolResultMessage
from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from tests.cli.test_chat import ChatProcess
from tests.cli.test_engine_e2e import of_type, tool_names, write_project_file
from tests.cli.test_tool_process_lifetime import start
from tests.conftest import Workspace
from tests.processes import wait_for_process, wait_until_gone

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)
AGENT_TOOLS = {"agent", "agent_start", "agent_check", "agent_stop"}


def first_user(request: RecordedRequest) -> str:
    return json.dumps(request.body["messages"][0 if request.protocol == "anthropic-messages" else 1])


def requests_of(provider: ScriptedProvider, marker: str) -> list[int]:
    """The positions, among all requests, of those whose conversation starts with `marker`."""
    return [i for i, request in enumerate(provider.requests) if marker in first_user(request)]


def root_session(workspace: Workspace) -> Session:
    path = latest_session_path(workspace.agent_dir, workspace.project)
    assert path is not None
    return Session.load(path)


def tool_results(session: Session) -> list[ToolResultMessage]:
    return [m for m in session.history() if isinstance(m, ToolResultMessage)]


def bash(command: str) -> Reply:
    return Reply(tool_calls=[("bash", {"command": command})])


def test_six_subagents_run_two_at_a_time_and_answer_in_call_order(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_project_file(workspace, "miniagent.yml", "profiles:\n  pair:\n    maxParallelAgents: 2\n")
    workspace.env["AGENT_BACKEND"] = "mini:pair"
    calls = [
        ("agent", {"description": f"review m{n}", "prompt": f"CHILD-{n} review module {n}"}) for n in range(6)
    ]
    provider.script(Reply(tool_calls=calls), Reply(text="all six reviewed"))
    for n in range(6):
        # each child counts the children running beside it, in the shell, while it runs
        count = f"mkdir -p running && touch running/{n} && ls running | wc -l >> counts && sleep 0.2"
        provider.script_for(
            f"CHILD-{n}", bash(f"{count} && rm running/{n}"), Reply(text=f"top issue of m{n}")
        )
    result = workspace.run("run", "--json", "review the six modules in parallel")
    assert result.returncode == 0, result.stderr
    spans = [requests_of(provider, f"CHILD-{n}") for n in range(6)]
    assert all(len(span) == 2 for span in spans)
    for position in range(len(provider.requests)):  # children whose first request came and last did not
        running = [span for span in spans if span[0] <= position <= span[1]]
        assert len(running) <= 2, f"{len(running)} children at request {position}"
    counts = [int(line) for line in (workspace.project / "counts").read_text().split()]
    assert max(counts) <= 2
    final = provider.requests[-1].body
    answers = [n for n in range(6) if f"top issue of m{n}" in json.dumps(final)]
    assert answers == list(range(6))
    texts = json.dumps(final["messages"])
    assert [texts.index(f"top issue of m{n}") for n in range(6)] == sorted(
        texts.index(f"top issue of m{n}") for n in range(6)
    )  # results in call order
    for n in range(6):  # no child can start a subagent of its own
        assert not AGENT_TOOLS & set(tool_names(provider.requests[spans[n][0]].body))
    assert set(tool_names(provider.requests[0].body)) >= AGENT_TOOLS
    starts, ends = of_type(result.stdout, "subagent_start"), of_type(result.stdout, "subagent_end")
    assert len(starts) == len(ends) == 6
    assert {record["session"] for record in starts} == {record["session"] for record in ends}
    assert all(record["state"] == "done" for record in ends)


@one_protocol
def test_a_background_outcome_enters_the_same_turn_unasked_and_agent_check_works_after_a_restart(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(
            tool_calls=[("agent_start", {"description": "run the tests", "prompt": "CHILD-T run all tests"})]
        ),
        Reply(tool_calls=[("ls", {"path": "."})]),
        Reply(text="Refactored util.py; the tests still run."),
        Reply(text="The tests passed: 12 passed."),
    )
    provider.script_for("CHILD-T", bash("echo 12 passed"), Reply(text="12 passed"))
    result = workspace.run("run", "start the tests in the background and keep refactoring")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "The tests passed: 12 passed."
    parent = [
        provider.requests[i] for i in range(len(provider.requests)) if i not in requests_of(provider, "CHILD")
    ]
    assert len(parent) == 4
    last = json.dumps(parent[-1].body["messages"][-1])
    assert "Background task 1 (run the tests) finished. Its answer:" in last
    assert "12 passed" in last
    assert "agent_check" not in json.dumps(parent[-1].body["messages"])  # it was never asked for
    # a new process: the task and its outcome are still there
    provider.script(Reply(tool_calls=[("agent_check", {"task": 1})]), Reply(text="It passed."))
    again = workspace.run("run", "--continue", "--json", "how did the tests go?")
    assert again.returncode == 0, again.stderr
    [check] = [r for r in of_type(again.stdout, "tool_end") if r["name"] == "agent_check"]
    assert check["output"].startswith("Task 1 (run the tests): done.\n\n12 passed\n\n[subagent ")
    [start_line] = [r for r in of_type(again.stdout, "tool_start") if r["name"] == "agent_check"]
    assert start_line["summary"] == "Check run the tests"


@one_protocol
def test_ctrl_c_stops_the_children_and_their_shells(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(
        Reply(
            tool_calls=[
                ("agent_start", {"description": "background sleep", "prompt": "CHILD-BG"}),
                ("agent", {"description": "foreground sleep", "prompt": "CHILD-FG"}),
            ]
        )
    )
    provider.script_for("CHILD-BG", bash("echo $$ > bg.pid; exec sleep 1000"))
    provider.script_for("CHILD-FG", bash("echo $$ > fg.pid; exec sleep 1001"))
    process = start(workspace, "run", "sleep in two subagents")
    pids = [
        wait_for_process(workspace.project / "bg.pid", ["sleep", "1000"]),
        wait_for_process(workspace.project / "fg.pid", ["sleep", "1001"]),
    ]
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert (process.returncode, stderr) == (130, "miniroom: aborted.\n")
    wait_until_gone(pids[0], ["sleep", "1000"])
    wait_until_gone(pids[1], ["sleep", "1001"])
    root = root_session(workspace)
    children = child_sessions(root.path, root.id)
    assert len(children) == 2
    for child in children:
        entries = Session.load(child.path).entries
        assert [e["data"]["note"] for e in entries if e.get("customType") == "stop_note"] == [
            "the parent chat was stopped"
        ]
    task = TaskStore.of_session(workspace.agent_dir, root.id).get(1)
    assert task is not None
    assert task.state == "stopped"


@one_protocol
def test_subagents_cut_short_by_kill_9_are_closed_with_a_stop_note_at_the_next_start(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(tool_calls=[("agent_start", {"description": "long job", "prompt": "CHILD-LONG"})]),
        Reply(tool_calls=[("agent", {"description": "look meanwhile", "prompt": "CHILD-LOOK"})]),
    )
    provider.script_for("CHILD-LONG", bash("echo $$ > long.pid; exec sleep 1002"))
    provider.script_for("CHILD-LOOK", bash("echo $$ > look.pid; exec sleep 1005"))
    process = start(workspace, "run", "start the long job")
    pids = [
        wait_for_process(workspace.project / "long.pid", ["sleep", "1002"]),
        wait_for_process(workspace.project / "look.pid", ["sleep", "1005"]),
    ]
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    wait_until_gone(pids[0], ["sleep", "1002"])  # the reaper took the children's shells down
    wait_until_gone(pids[1], ["sleep", "1005"])
    provider.script(Reply(tool_calls=[("agent_check", {"task": 1})]), Reply(text="It was stopped."))
    result = workspace.run("run", "--continue", "--json", "what became of the long job?")
    assert result.returncode == 0, result.stderr
    [check] = [r for r in of_type(result.stdout, "tool_end") if r["name"] == "agent_check"]
    stopped = f"Task 1 (long job): stopped.\n\nStopped: {SHUTDOWN_NOTE}.\n\n[subagent "
    assert check["output"].startswith(stopped)
    root = root_session(workspace)
    texts = [m.text for m in root.history()][:5]
    assert texts == [
        "start the long job",
        "",
        "Started background task 1 (long job).",
        "",
        INTERRUPTED_TOOL_TEXT,
    ]
    for child in child_sessions(root.path, root.id):
        child_session = Session.load(child.path)
        notes = [e["data"]["note"] for e in child_session.entries if e.get("customType") == "stop_note"]
        assert notes == [SHUTDOWN_NOTE], child.description
        kept = [m.text for m in child_session.history()]
        assert kept[0] in ("CHILD-LONG", "CHILD-LOOK")  # what the child had is kept
        assert kept[-1] == INTERRUPTED_TOOL_TEXT  # and its shell call is closed


@one_protocol
def test_chat_shows_subagents_and_background_calls_in_plain_words(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(
            tool_calls=[
                ("agent_start", {"description": "run the tests", "prompt": "CHILD-T"}),
                ("agent", {"description": "review util", "prompt": "CHILD-R"}),
            ]
        ),
        Reply(tool_calls=[("agent_check", {"task": 1}), ("agent_stop", {"task": 1})]),
        Reply(text="Stopped the tests; util looks fine."),
    )
    provider.script_for("CHILD-T", bash("echo $$ > tests.pid; exec sleep 1003"))
    provider.script_for("CHILD-R", Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="util is fine"))
    chat = ChatProcess(workspace)
    chat.expect("> ")
    chat.send("test and review")
    out = chat.expect("session $")
    assert "● Start run the tests" in out
    assert "● Agent review util" in out
    assert "  ↳ review util: Ls . · " in out
    assert "  ↳ review util: done · " in out
    assert "— util is fine" in out
    assert "● Check run the tests" in out
    assert "● Stop run the tests" in out
    assert "  ↳ run the tests: stopped · " in out
    assert chat.close() == 0


@one_protocol
def test_sessions_list_and_show_the_children_with_their_spend(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(
            tool_calls=[
                ("agent", {"description": "first look", "prompt": "CHILD-1"}),
                ("agent", {"description": "second look", "prompt": "CHILD-2"}),
            ],
            usage=(1000, 10, 0, 0),
        ),
        Reply(text="done", usage=(1000, 10, 0, 0)),
    )
    provider.script_for("CHILD-1", Reply(text="one", usage=(300, 30, 0, 0)))
    provider.script_for("CHILD-2", Reply(text="two", usage=(400, 40, 0, 0)))
    assert workspace.run("run", "look twice").returncode == 0
    root = root_session(workspace)
    listed = workspace.run("sessions", "list").stdout.splitlines()
    assert len(listed) == 3
    assert root.id in listed[0]
    assert all("  ↳ subagent: " in line for line in listed[1:])
    assert {line.split()[0] for line in listed[1:]} == {c.id for c in child_sessions(root.path, root.id)}
    shown = workspace.run("sessions", "show", root.id).stdout
    children = {c.description: c.id for c in child_sessions(root.path, root.id)}
    assert f"  {children['first look']}  first look  ↑300 ↓30 · $0.0000" in shown
    assert f"  {children['second look']}  second look  ↑400 ↓40 · $0.0000" in shown
    assert "tokens: input 2,700, output 90" in shown  # the parent's own and its children's
    child = workspace.run("sessions", "show", children["first look"]).stdout
    assert f"subagent of session {root.id}: first look" in child


def test_no_profile_can_filter_the_agent_tools_and_max_parallel_agents_must_be_positive(
    workspace: Workspace,
) -> None:
    workspace.env["AGENT_BACKEND"] = "mini:p"
    for text, message in (
        (
            "profiles:\n  p:\n    disabledTools: [agent_start]\n",
            "'agent_start' is always given to root chats",
        ),
        (
            "profiles:\n  p:\n    maxParallelAgents: 0\n",
            "maxParallelAgents: must be a whole number above zero, got 0",
        ),
        (
            "profiles:\n  p:\n    maxParallelAgents: -3\n",
            "maxParallelAgents: must be a whole number above zero, got -3",
        ),
    ):
        write_project_file(workspace, "miniagent.yml", text)
        result = workspace.run("run", "hi")
        assert result.returncode == 2
        assert message in result.stderr
    (workspace.project / ".miniroom" / "miniagent.yml").unlink()
    del workspace.env["AGENT_BACKEND"]  # a profile the project lacks is refused on its own
    workspace.env["MINI_PROFILE_MAX_PARALLEL_AGENTS"] = "0"
    result = workspace.run("run", "hi")
    assert result.returncode == 2
    assert (
        "MINI_PROFILE_MAX_PARALLEL_AGENTS in the process environment: must be a whole number above zero"
        in (result.stderr)
    )
