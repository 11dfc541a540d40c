"""MCP servers through `miniroom-agent` in minimal mode: a real stdio server of `.miniroom/mcp.yml`, reached
by the agent's Bash running the real CLI against `miniroom serve`'s API, with hooks.yml's deny rules."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.conftest import Workspace, clean_env
from tests.mcp.conftest import stdio_entry, write_mcp
from tests.minimal.support import bash, system_text, tool_output
from tests.minimal.test_serve_e2e import answered, serve_process
from tests.runtime.serve_process import ServeProcess

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses


@pytest.fixture
def serve(tmp_path: Path, provider: ScriptedProvider) -> Iterator[ServeProcess]:
    write_mcp(tmp_path, {"probe": stdio_entry()})
    write_settings(tmp_path, "hooks.yml", json.dumps({"deny": ["mcp__probe__image"]}))
    process = serve_process(tmp_path, provider)
    yield process
    process.kill()


def test_minimal_mode_reaches_the_mcp_servers_as_toolkits_under_the_deny_rules(
    serve: ServeProcess, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(text="hello there"),
        bash(
            "miniroom-agent tools list; "
            'miniroom-agent tools call mcp_probe.echo \'{"text": "hi from mcp"}\'; echo echo_rc=$?; '
            "miniroom-agent tools call mcp_probe image '{}'; echo image_rc=$?"
        ),
        Reply(text="done"),
    )
    root = serve.post("hello")["event_id"]
    answered(serve, root, 1)
    serve.post("!mode helper minimal", thread_root=root)
    serve.post("use the probe", thread_root=root)
    assert answered(serve, root, 3)[-1].endswith("done")
    minimal, after = (request.body for request in provider.requests[1:])
    assert [tool["name"] for tool in minimal["tools"]] == ["bash"]  # MCP schemas are not sent
    assert "mcp_probe" in system_text(minimal)  # the prompt names the toolkit
    output = tool_output(after)
    compact = output.replace(" ", "").replace("\n", "")
    assert '"toolkit":"mcp_probe"' in compact
    assert '"tool":"mcp_probe.echo"' in compact
    assert '"tool":"mcp_probe.image"' in compact
    assert "hi from mcp" in output
    assert "echo_rc=0" in output
    assert "Denied by the rule" in output
    assert "mcp__probe__image" in output
    assert "image_rc=1" in output


def test_a_standard_run_reaches_its_mcp_servers_through_the_cli_too(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write_mcp(project, {"probe": stdio_entry()})
    env = clean_env(tmp_path / "mini")
    env.update(MODEL="scripted/test-model", MINI_API="anthropic-messages", MINI_BASE_URL=provider.url)
    env["MINI_API_KEY"] = "sk-test-secret"
    provider.script(
        bash('miniroom-agent tools call mcp_probe echo \'{"text": "via the shell"}\'; echo rc=$?'),
        Reply(text="done"),
    )
    result = Workspace(project, tmp_path / "mini", env).run("run", "--json", "echo it")
    assert result.returncode == 0, result.stderr
    first, second = (request.body for request in provider.requests)
    assert "mcp__probe__echo" in [tool["name"] for tool in first["tools"]]  # still sent directly
    output = tool_output(second)
    assert "via the shell" in output
    assert "rc=0" in output
