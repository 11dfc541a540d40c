"""A sandboxed agent's shell still reaches its other tools: `miniroom-agent` inside bubblewrap, without
network, calls miniroom's API through the relay socket, while the files outside its project stay hidden."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.tools.sandbox import sandbox_problem
from tests.conftest import Workspace, clean_env
from tests.minimal.support import bash, tool_output

pytestmark = pytest.mark.e2e

SECRET = "sandbox-e2e-secret"


@pytest.fixture
def project(tmp_path: Path, provider: ScriptedProvider) -> Workspace:
    assert sandbox_problem("workspace") is None, sandbox_problem("workspace")  # make test installs bwrap
    folder = tmp_path / "project"
    folder.mkdir()
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "secret.txt").write_text(SECRET)  # in MINI_AGENT_DIR, beside the sessions
    env = clean_env(tmp_path / "mini")
    env.update(MODEL="scripted/test-model", MINI_API="anthropic-messages", MINI_BASE_URL=provider.url)
    env.update(MINI_API_KEY="sk-test-secret", MINI_PROFILE_SANDBOX="workspace")
    return Workspace(folder, tmp_path / "mini", env)


@pytest.mark.parametrize("mode", [("--minimal",), ()], ids=["minimal", "standard"])
def test_a_sandboxed_shell_calls_its_tools_but_reaches_no_network_and_no_secret(
    project: Workspace, provider: ScriptedProvider, mode: tuple[str, ...]
) -> None:
    port = provider.url.rsplit(":", 1)[1].strip("/")
    write = '{"path": "out.txt", "content": "written through the API"}'
    connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
    provider.script(
        bash(
            f"miniroom-agent tools call files write '{write}'; echo call=$?\n"
            f"cat {project.agent_dir}/secret.txt; echo read=$?\n"
            f'python3 -c "{connect}" 2>/dev/null; echo network=$?'
        ),
        Reply(text="done"),
    )
    result = project.run("run", *mode, "use your tools")
    assert result.returncode == 0, result.stderr
    output = tool_output(provider.requests[1].body)
    assert "call=0" in output, output
    assert (project.project / "out.txt").read_text() == "written through the API"
    assert SECRET not in output
    assert "read=1" in output
    assert "network=1" in output
