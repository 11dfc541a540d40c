"""miniroom's secrets stay out of the agent's shell: not in its environment, nor in /proc/PID/environ."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.conftest import MINIROOM, Workspace
from tests.mcp.conftest import SERVER as MCP_SERVER
from tests.mcp.conftest import write_mcp

one_protocol = pytest.mark.parametrize("workspace", ["openai-completions"], indirect=True)

SECRETS = {
    "MINIROOM_API_TOKEN": "api-token-secret-1",
    "MINIROOM_MATRIX_PASSWORD": "matrix-password-secret-2",
    "MINIROOM_MATRIX_PASSWORD_HELPER": "matrix-password-secret-3",
    "ANTHROPIC_API_KEY": "anthropic-key-secret-4",
}
PROBE = "env; cat /proc/$PPID/environ > /dev/null && echo ENVIRON-READABLE || echo ENVIRON-DENIED"


def without_capabilities() -> list[str]:
    """As root, a prefix dropping every capability: root may read any process's memory, as documented."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "as root this test needs setpriv (util-linux) to drop the capabilities"
    return [setpriv, "--bounding-set=-all", "--inh-caps=-all"]


@one_protocol
def test_the_shell_sees_no_secret_and_cannot_read_miniroom_memory(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    workspace.env.update(SECRETS)
    workspace.env["OPENAI_API_KEY"] = "openai-key-passed-5"
    workspace.env["MINI_TOOL_KEYS"] = "OPENAI_API_KEY, MINIROOM_API_TOKEN"
    provider.script(Reply(tool_calls=[("bash", {"command": PROBE})]), Reply(text="done"))
    result = subprocess.run(
        [*without_capabilities(), MINIROOM, "run", "look around"],
        cwd=workspace.project,
        env=workspace.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    shell_saw = json.dumps(provider.requests[1].body)
    assert [name for name, value in SECRETS.items() if value in shell_saw] == []
    assert workspace.env["MINI_API_KEY"] not in shell_saw  # the key miniroom itself uses
    assert "OPENAI_API_KEY=openai-key-passed-5" in shell_saw  # named in MINI_TOOL_KEYS
    assert "ENVIRON-DENIED" in shell_saw
    assert (
        "MINI_TOOL_KEYS names MINIROOM_API_TOKEN, one of miniroom's own secrets, which never reach a tool's "
        "process; remove it from MINI_TOOL_KEYS." in result.stderr
    )


# Keys under names no list of secrets knows: each in use by a settings file, or only lying in the environment.
UNKNOWN_SECRETS = {
    "MY_VENDOR_KEY": "vendor-key-secret-6",  # models.json's apiKey
    "CORP_PROXY_PASS": "proxy-password-secret-7",  # fetch.yml's ProxyPassword
    "SEARCH_VENDOR_KEY": "search-key-secret-8",  # search.yml's ApiKey
    "OPENAI_KEY": "openai-like-secret-9",
}
PASSED = {"TOOLS_OWN_KEY": "passed-on-purpose-10", "TOOLS_SETTING": "passed-on-purpose-11"}


def probe(file: str) -> str:
    """A shell command writing its environment to `file`, then whether it could read its parent's."""
    return (
        f"env > {file}; cat /proc/$PPID/environ > /dev/null 2>&1 "
        f"&& echo ENVIRON-READABLE >> {file} || echo ENVIRON-DENIED >> {file}"
    )


def project_with_secrets(workspace: Workspace) -> None:
    """A bash-probing hook, a stdio MCP server and a ScriptFetch service that each write what they see."""
    workspace.env.update(UNKNOWN_SECRETS | PASSED)
    workspace.env.update(MINI_TOOL_KEYS="TOOLS_OWN_KEY", MINI_TOOL_ENV="TOOLS_SETTING")
    workspace.agent_dir.mkdir(parents=True, exist_ok=True)
    models = {"providers": {"scripted": {"apiKey": "$MY_VENDOR_KEY", "models": [{"id": "test-model"}]}}}
    (workspace.agent_dir / "models.json").write_text(json.dumps(models))
    script = {"Command": probe("script.env") + """; echo '{"body": "fetched"}'"""}
    proxied = {"ProxyUrl": "http://127.0.0.1:9", "ProxyUsername": "me", "ProxyPassword": "$CORP_PROXY_PASS"}
    fetch = [
        {"name": "Script", "type": "ScriptFetch", "priority": 1, "settings": script},
        {"name": "Corporate", "type": "Proxied", "priority": 2, "settings": proxied},
    ]
    search = [{"name": "Tavily", "type": "Tavily", "settings": {"ApiKey": "$SEARCH_VENDOR_KEY"}}]
    server = [probe("mcp.env") + '; exec "$0" "$@"', sys.executable, str(MCP_SERVER), "stdio"]
    hooks = {"hooks": [{"event": "PreToolUse", "matcher": "bash", "command": probe("hook.env")}]}
    write_settings(workspace.project, "fetch.yml", json.dumps({"services": fetch}))
    write_settings(workspace.project, "search.yml", json.dumps({"services": search}))
    write_settings(workspace.project, "hooks.yml", json.dumps(hooks))
    write_mcp(workspace.project, {"probe": {"type": "stdio", "command": "sh", "args": ["-c", *server]}})


def assert_sees_only_what_it_was_given(workspace: Workspace, file: str) -> None:
    seen = (workspace.project / file).read_text()
    assert [name for name, value in (SECRETS | UNKNOWN_SECRETS).items() if value in seen] == [], file
    assert workspace.env["MINI_API_KEY"] not in seen, file
    for name, value in PASSED.items():
        assert f"{name}={value}\n" in seen, file
    assert f"HOME={workspace.env['HOME']}\n" in seen, file
    assert "ENVIRON-DENIED" in seen, file


@one_protocol
def test_no_process_miniroom_starts_gets_a_key_it_was_not_given(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    project_with_secrets(workspace)
    calls = [("bash", {"command": probe("bash.env")}), ("fetch", {"url": "https://example.org/"})]
    provider.script(Reply(tool_calls=calls), Reply(text="done"))
    result = subprocess.run(
        [*without_capabilities(), MINIROOM, "run", "look around"],
        cwd=workspace.project,
        env=workspace.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert provider.requests[0].headers["authorization"] == "Bearer vendor-key-secret-6"  # the key in use
    assert "Fetched https://example.org/ with Script" in json.dumps(provider.requests[1].body)
    for file in ("bash.env", "hook.env", "mcp.env", "script.env"):
        assert_sees_only_what_it_was_given(workspace, file)


@one_protocol
def test_the_children_of_mcp_list_and_web_test_cannot_read_miniroom_memory(workspace: Workspace) -> None:
    project_with_secrets(workspace)
    for command in (["mcp", "list"], ["web", "test", "fetch", "Script"]):
        result = subprocess.run(
            [*without_capabilities(), MINIROOM, *command],
            cwd=workspace.project,
            env=workspace.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stdout + result.stderr
    assert_sees_only_what_it_was_given(workspace, "mcp.env")
    assert_sees_only_what_it_was_given(workspace, "script.env")
