"""miniroom's secrets stay out of the agent's shell: not in its environment, nor in /proc/PID/environ."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import MINIROOM, Workspace

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
