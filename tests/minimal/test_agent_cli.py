"""`miniroom-agent` as a script calls it: a real subprocess. Its help, its usage errors (exit code 2, JSON on
stderr), what it says when it cannot reach miniroom, and that it starts on the standard library alone."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from miniroom.agent_cli import main as cli
from miniroom.tools.environment import GRANT_TOKEN_VARIABLE, GRANT_URL_VARIABLE

AGENT_CLI = str(Path(sys.executable).with_name("miniroom-agent"))


def run(*args: str, env: dict[str, str] | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    base = {key: value for key, value in os.environ.items() if not key.startswith("MINIROOM_AGENT")}
    return subprocess.run(
        [AGENT_CLI, *args],
        env={**base, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
    )


def error_of(result: subprocess.CompletedProcess[str]) -> dict[str, object]:
    error: dict[str, object] = json.loads(result.stderr)
    return error


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # nothing listens there once the probe is closed


def test_the_client_reads_the_variables_the_shell_tools_set() -> None:
    assert (cli.URL_VARIABLE, cli.TOKEN_VARIABLE) == (GRANT_URL_VARIABLE, GRANT_TOKEN_VARIABLE)


def test_help_lists_every_command_and_the_exit_codes() -> None:
    result = run("--help")
    assert result.returncode == 0
    for group, action in cli.COMMANDS:
        assert f"{group} {action}" in result.stdout
    for line in ("0  success", "3  the call is still queued", "4  the outcome is unknown", "set -e"):
        assert line in result.stdout


@pytest.mark.parametrize(("group", "action"), list(cli.COMMANDS))
def test_each_command_has_its_own_help(group: str, action: str) -> None:
    result = run(group, action, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith(f"usage: miniroom-agent {group} {action}")
    assert "4  the outcome is unknown" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["tools", "fly"], "unknown command tools 'fly'; use one of: list, search, describe, call"),
        (["tools", "call", "files"], "'files' names a toolkit only: add the function, e.g. files read"),
        (["tools", "call", "files", "read", "{}", "--json", "{}"], "give the arguments one way only"),
        (["tools", "call", "files.read", "--json", "[1]"], "the arguments must be a JSON object"),
        (["tools", "call", "files.read", "--json", "{oops"], "the arguments are not JSON"),
        (["tools", "call", "files.read", "--json-file", "/nonexistent.json"], "cannot read --json-file"),
        (["tools", "call", "files.read", "--timeout", "soon"], "--timeout must be a number of seconds"),
        (["tools", "call", "files.read", "--timeout", "-1"], "--timeout must be 0 or more seconds"),
        (["tools", "list", "--verbose"], "unknown option --verbose (this command takes: none)"),
        (["calls", "wait"], "expected 1 argument(s), got 0"),
        (["context", "read", "x", "--offset", "ten"], "--offset must be a whole number"),
        (["tools", "search", "x", "--limit"], "--limit needs a value"),
    ],
)
def test_usage_errors_exit_2_with_a_json_error_naming_the_fix(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2, result.stderr
    error = error_of(result)
    assert message in str(error["error"])
    assert error["exit_code"] == 2


def test_arguments_from_stdin_must_be_a_json_object_too() -> None:
    result = run("tools", "call", "files.read", "--json-stdin", stdin='"README.md"')
    assert result.returncode == 2
    assert "must be a JSON object" in str(error_of(result)["error"])


def test_outside_an_agents_shell_it_says_what_is_missing() -> None:
    result = run("tools", "list")
    assert result.returncode == 5
    assert error_of(result)["error"] == (
        "MINIROOM_AGENT_URL is not set: miniroom-agent works inside a shell command of an agent's response"
    )


@pytest.mark.parametrize("variable", ["MINIROOM_AGENT_URL", "MINIROOM_AGENT_CLI_PRIMARY_URL"])
def test_a_cli_that_cannot_connect_names_the_address_it_tried(variable: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    env = {"MINIROOM_AGENT_URL": "http://127.0.0.1:1", variable: url, GRANT_TOKEN_VARIABLE: "t"}
    result = run("tools", "call", "files.read", "{}", env=env)
    assert result.returncode == 5
    assert (
        error_of(result)["error"] == f"cannot reach miniroom at {url} (Connection refused); no call was made"
    )


@pytest.mark.parametrize("args", [["--help"], ["tools", "list"], ["tools", "call", "files.read", "{}"]])
def test_it_starts_on_the_standard_library_and_nothing_else_of_miniroom(args: list[str]) -> None:
    env = {**os.environ, GRANT_URL_VARIABLE: f"http://127.0.0.1:{closed_port()}", GRANT_TOKEN_VARIABLE: "t"}
    result = subprocess.run(
        [sys.executable, "-X", "importtime", AGENT_CLI, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    imported = [
        line.split("|")[-1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "imported package" not in line
    ]
    assert "miniroom.agent_cli.main" in imported
    ours = {name for name in imported if name.split(".")[0] == "miniroom"}
    assert ours <= {"miniroom", "miniroom.agent_cli", "miniroom.agent_cli.main", "miniroom.agent_cli.http"}
    foreign = [
        name
        for name in imported
        if name.split(".")[0] not in sys.stdlib_module_names
        and name.split(".")[0]
        not in ("miniroom", "_distutils_hack", "sitecustomize", "__editable___miniroom_0_1_0_finder")
    ]
    assert foreign == []
    if args[0] != "tools" or args[1] == "list":  # the start-up budget: not even json, re or typing
        assert not {"json", "re", "argparse", "dataclasses", "typing"} & set(imported)
