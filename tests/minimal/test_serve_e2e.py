"""`miniroom serve` on embedded rooms with minimal mode: `!mode` in a thread, the agent's one Bash tool
running real `miniroom-agent` subprocesses against serve's API, grants scoped to their response and
conversation, exit code 4 when miniroom dies after taking a call, and the isolated script gateway."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from miniroom.agent.minimal import CLI_HINT
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.minimal.proxy import CuttingProxy
from tests.minimal.support import bash, tool_output
from tests.processes import wait_until
from tests.runtime.serve_process import ServeProcess, free_port
from tests.runtime.support import agent_entry, write_config

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

AGENT_CLI = str(Path(sys.executable).with_name("miniroom-agent"))
HELPER = "@helper:miniroom.local"
CALL = "9d2e6a10-0000-4000-8000-00000000000a"
# The grant's variables, for the test's own miniroom-agent (outside the sandbox: by the URL, not the socket)
SAVE_GRANT = "env | grep -E '^MINIROOM_AGENT_(URL|TOKEN)='"


@pytest.fixture
def serve(tmp_path: Path, provider: ScriptedProvider) -> Iterator[ServeProcess]:
    process = serve_process(tmp_path, provider)
    yield process
    process.kill()


def serve_process(
    tmp_path: Path, provider: ScriptedProvider, tools: list[str] | None = None, **env: str
) -> ServeProcess:
    entry = agent_entry("Helper", role="Keeps the build green") | ({"tools": tools} if tools else {})
    entry["minimal_instructions"] = ["Read the instructions before changing files."]
    config = write_config(tmp_path, provider, {"helper": entry}, router=None)
    process = ServeProcess(config, {**clean_env(tmp_path / "mini"), **env}, tmp_path / "serve.log")
    process.start()
    return process


def answered(serve: ServeProcess, root: str, count: int) -> list[str]:
    """The texts of the agent's first `count` messages in the thread, once each is complete."""

    def done() -> list[str] | None:
        shown = [
            serve.shown(event)
            for event in serve.replies_by(HELPER)
            if (event["content"].get("m.relates_to") or {}).get("event_id") == root
        ][:count]
        states = [content.get("io.miniroom.turn", {}).get("state", "done") for content in shown]
        finished = len(shown) == count and all(state in ("done", "failed") for state in states)
        return [str(content["body"]) for content in shown] if finished else None

    return serve.wait_for(done, f"{count} finished replies in thread {root}")


def agent_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT_CLI, *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=60
    )


def held_workspace(tmp_path: Path) -> Path:
    """The agent's workspace, with `hold.fifo`: a command reading it runs until the test writes to it."""
    workspace = tmp_path / "miniroom_data" / "workspaces" / "helper"
    workspace.mkdir(parents=True, exist_ok=True)
    os.mkfifo(workspace / "hold.fifo")
    return workspace


def grant_file(path: Path) -> dict[str, str]:
    wait_until(lambda: path.exists() and path.read_text().count("\n") >= 2, f"{path} holds the grant")
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_mode_minimal_in_a_thread_gives_the_short_prompt_and_the_cli(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    workspace = tmp_path / "miniroom_data" / "workspaces" / "helper"
    provider.script(
        Reply(text="hello there"),
        bash(
            "miniroom-agent context read instructions --limit 8000; "
            'miniroom-agent tools call files write \'{"path": "a.txt", "content": "A"}\'; echo rc=$?'
        ),
        Reply(text="wrote it"),
    )
    root = serve.post("hello")["event_id"]
    answered(serve, root, 1)
    serve.post("!mode helper minimal", thread_root=root)
    serve.post("!mode helper show", thread_root=root)
    serve.post("write a file", thread_root=root)
    replies = answered(serve, root, 4)
    assert replies[1].startswith("helper answers in minimal mode in this thread: a short prompt and one bash")
    assert replies[2].startswith("helper answers in minimal mode in this thread")
    assert replies[3].endswith("wrote it")
    standard, minimal, after = (request.body for request in provider.requests)
    assert len(standard["tools"]) > 1
    assert CLI_HINT in "".join(block["text"] for block in standard["system"])  # standard mode: one line
    assert [tool["name"] for tool in minimal["tools"]] == ["bash"]
    system = "".join(block["text"] for block in minimal["system"])
    assert system.startswith("You are Helper, an agent in a chat room.")
    assert system.endswith("Read the instructions before changing files.")
    assert "Keeps the build green" not in system  # the role lives in the instructions document
    output = tool_output(after)
    assert "rc=0" in output
    assert "Your role: Keeps the build green" in output  # the instructions, read through the CLI
    assert (workspace / "a.txt").read_text() == "A"
    stored = json.loads((tmp_path / "miniroom_data" / "tracking" / "agent_modes.json").read_text())
    assert list(stored["helper"].values()) == ["minimal"]


def test_a_grant_reaches_only_its_conversation_and_ends_with_its_response(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    write = '{"path": "a.txt", "content": "A"}'
    provider.script(
        bash(f"miniroom-agent tools call files.write '{write}' --call-id {CALL}; {SAVE_GRANT} > a.env"),
        Reply(text="first done"),
        bash(f"miniroom-agent calls get {CALL}; echo rc=$?"),
        Reply(text="second done"),
    )
    first = serve.post("write a file")["event_id"]
    answered(serve, first, 1)
    second = serve.post("look for that call")["event_id"]
    answered(serve, second, 1)
    output = tool_output(provider.requests[3].body)
    assert f"no call {CALL} in this conversation" in output
    assert "rc=2" in output
    grant = grant_file(tmp_path / "miniroom_data" / "workspaces" / "helper" / "a.env")
    late = agent_cli("calls", "get", CALL, env=grant)
    assert late.returncode == 5
    assert (
        "this grant no longer works: its response and the response's background jobs have ended"
        in late.stderr
    )


@pytest.fixture
def unsandboxed(tmp_path: Path, provider: ScriptedProvider) -> Iterator[ServeProcess]:
    """serve with `sandbox: off`: only there does a background job outlive its command."""
    process = serve_process(tmp_path, provider, MINI_PROFILE_SANDBOX="off")
    yield process
    process.kill()


def test_a_background_job_keeps_the_grant_for_reading_until_it_ends(
    tmp_path: Path, unsandboxed: ServeProcess, provider: ScriptedProvider
) -> None:
    serve = unsandboxed
    workspace = held_workspace(tmp_path)
    provider.script(
        bash(
            f'miniroom-agent tools call files.write \'{{"path": "a.txt", "content": "A"}}\' --call-id {CALL}'
            f"; {SAVE_GRANT} > grant.env; (cat hold.fifo > /dev/null) > /dev/null 2>&1 & echo $! > job.pid"
        ),
        Reply(text="started a job"),
    )
    root = serve.post("start a job")["event_id"]
    answered(serve, root, 1)
    grant = grant_file(workspace / "grant.env")
    assert agent_cli("calls", "get", CALL, env=grant).returncode == 0  # the job still runs
    refused = agent_cli("tools", "call", "files.ls", "{}", env=grant)
    assert refused.returncode == 5
    assert "bash call has returned, so it can submit no more calls" in refused.stderr
    job = int((workspace / "job.pid").read_text())
    with open(workspace / "hold.fifo", "w") as writer:
        writer.write("go\n")
    wait_until(
        lambda: (
            not Path(f"/proc/{job}").exists()
            or b"Z" in Path(f"/proc/{job}/stat").read_bytes().split(b")")[-1][:3]
        ),
        "the job ended",
    )
    ended = agent_cli("calls", "get", CALL, env=grant)
    assert ended.returncode == 5
    assert "background jobs have ended" in ended.stderr


def test_exit_4_when_miniroom_dies_after_taking_the_call_and_the_receipt_survives_the_restart(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    workspace = held_workspace(tmp_path)
    provider.script(
        bash(f"{SAVE_GRANT} > grant.env; cat hold.fifo"),  # holds the response open
        bash(f"miniroom-agent calls get {CALL}; echo rc=$?"),  # the turn, run again after the restart
        Reply(text="checked"),
    )
    root = serve.post("hold on")["event_id"]
    grant = grant_file(workspace / "grant.env")
    proxy = CuttingProxy(serve.port)
    write = '{"path": "b.txt", "content": "B"}'
    env = {**os.environ, **grant, "MINIROOM_AGENT_URL": proxy.url}
    cli = subprocess.Popen(
        [AGENT_CLI, "tools", "call", "files.write", write, "--call-id", CALL],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proxy.answered.wait(60)
    serve.kill()
    proxy.cut.set()
    _, stderr = cli.communicate(timeout=60)
    assert cli.returncode == 4
    error = json.loads(stderr)
    assert error["call_id"] == CALL
    assert f"Check it with `miniroom-agent calls get {CALL}` before you submit it again" in error["error"]
    serve.start()
    replies = answered(serve, root, 1)
    assert replies[-1].endswith("checked")
    output = tool_output(provider.requests[-1].body)
    assert "rc=0" in output
    assert f'"call_id":"{CALL}","tool":"files.write","status":"succeeded"' in output.replace(" ", "")
    assert (workspace / "b.txt").read_text() == "B"


def test_mode_minimal_lists_every_missing_requirement_and_saves_nothing(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    gateway = free_port()
    serve = serve_process(
        tmp_path,
        provider,
        tools=["read", "ls"],
        MINIROOM_SCRIPT_GATEWAY_ISOLATED="true",
        MINIROOM_SCRIPT_GATEWAY_PORT=str(gateway),
        MINIROOM_SCRIPT_GATEWAY_URL=f"http://127.0.0.1:{gateway}/api/script-gateway",
    )
    try:
        provider.script(Reply(text="hi"))
        root = serve.post("hello")["event_id"]
        answered(serve, root, 1)
        serve.post("!mode helper minimal", thread_root=root)
        [_, reply] = answered(serve, root, 2)
    finally:
        serve.kill()
    assert reply.startswith("helper cannot answer in minimal mode, so nothing was saved. It needs:\n")
    assert "- agents.helper.tools in config.yaml does not include bash: add bash to it\n" in reply
    assert "- the API can be reached from other machines without a key: set MINIROOM_API_KEY" in reply
    assert ".env" in reply
    assert not (tmp_path / "miniroom_data" / "tracking" / "agent_modes.json").exists()


def test_the_isolated_gateway_serves_the_cli_routes_and_nothing_else(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    gateway = free_port()
    key = "k-" + "7" * 30
    serve = serve_process(
        tmp_path,
        provider,
        MINIROOM_API_KEY=key,
        MINIROOM_SCRIPT_GATEWAY_ISOLATED="true",
        MINIROOM_SCRIPT_GATEWAY_PORT=str(gateway),
        MINIROOM_SCRIPT_GATEWAY_URL=f"http://127.0.0.1:{gateway}/api/script-gateway",
    )
    try:
        provider.script(
            bash("echo url=$MINIROOM_AGENT_URL; miniroom-agent tools list; echo rc=$?"), Reply(text="ok")
        )
        headers = {"Authorization": f"Bearer {key}"}
        posted = httpx.post(f"{serve.base}api/rooms/lobby/messages", json={"body": "list"}, headers=headers)
        assert posted.status_code == 201, posted.text
        serve.wait_for(lambda: len(provider.requests) == 2, "the agent's second request")
        rooms_on_gateway = httpx.get(f"http://127.0.0.1:{gateway}/api/rooms", headers=headers)
    finally:
        serve.kill()
    output = tool_output(provider.requests[1].body)
    assert f"url=http://127.0.0.1:{gateway}" in output
    assert "rc=0" in output
    assert rooms_on_gateway.status_code == 404


def test_a_response_in_progress_keeps_the_mode_it_started_with(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    workspace = held_workspace(tmp_path)
    provider.script(bash("cat hold.fifo"), Reply(text="standard to the end"), Reply(text="now minimal"))
    root = serve.post("take your time")["event_id"]
    serve.wait_for(lambda: len(provider.requests) == 1, "the turn to start")
    serve.post("!mode helper minimal", thread_root=root)
    serve.wait_for(lambda: len(serve.replies_by(HELPER)) == 2, "the command's answer")
    with open(workspace / "hold.fifo", "w") as writer:
        writer.write("go\n")
    answered(serve, root, 2)
    serve.post("and the next one", thread_root=root)
    assert answered(serve, root, 3)[2] == "now minimal"
    running, finishing, next_turn = (request.body for request in provider.requests)
    assert len(running["tools"]) == len(finishing["tools"]) > 1
    assert [tool["name"] for tool in next_turn["tools"]] == ["bash"]


def test_minimal_turns_fail_once_a_requirement_breaks_until_standard_is_chosen(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="hello"), Reply(text="standard again"))
    root = serve.post("hello")["event_id"]
    answered(serve, root, 1)
    serve.post("!mode helper minimal", thread_root=root)
    answered(serve, root, 2)
    assert serve.stop() == 0
    config = yaml.safe_load(serve.config.read_text())
    config["agents"]["helper"]["tools"] = ["read", "ls"]
    serve.config.write_text(yaml.safe_dump(config))
    serve.start()
    serve.post("and now?", thread_root=root)
    failed = answered(serve, root, 3)[2]
    assert "Minimal mode needs what this agent or deployment lacks:" in failed
    assert "- agents.helper.tools in config.yaml does not include bash: add bash to it" in failed
    assert "Send !mode helper standard in this conversation to answer in standard mode again." in failed
    serve.post("!mode helper standard", thread_root=root)
    serve.post("and now?", thread_root=root)
    assert answered(serve, root, 5)[4] == "standard again"
    assert len(provider.requests) == 2  # the failed minimal turn asked the model nothing
