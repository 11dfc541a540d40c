"""Bad input and failing providers: `miniroom run` says what is wrong on stderr and exits non-zero."""

from __future__ import annotations

import socket
import subprocess

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import Workspace

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)


@one_protocol
def test_missing_key_names_the_variables_to_set(workspace: Workspace) -> None:
    del workspace.env["MINI_API_KEY"]
    workspace.env["MODEL"] = "anthropic/claude-sonnet-5"
    del workspace.env["MINI_BASE_URL"]
    result = workspace.run("run", "hi")
    assert result.returncode == 2
    assert "ANTHROPIC_API_KEY" in result.stderr
    assert "MINI_API_KEY" in result.stderr
    assert result.stdout == ""


@one_protocol
def test_unknown_protocol_lists_the_known_ones(workspace: Workspace) -> None:
    workspace.env["MINI_API"] = "grpc-magic"
    result = workspace.run("run", "hi")
    assert result.returncode == 2
    assert "grpc-magic" in result.stderr
    assert "anthropic-messages" in result.stderr
    assert "openai-completions" in result.stderr


@one_protocol
def test_model_name_that_does_not_parse(workspace: Workspace) -> None:
    result = workspace.run("run", "--model", "/nothing", "hi")
    assert result.returncode == 2
    assert "provider/model" in result.stderr


@one_protocol
def test_unreachable_base_url_is_a_connection_error_naming_the_address(workspace: Workspace) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    workspace.env["MINI_BASE_URL"] = f"http://127.0.0.1:{port}"
    (workspace.project / ".miniroom").mkdir()
    (workspace.project / ".miniroom" / "retry.yml").write_text("maxAttempts: 2\nretryIntervalSeconds: 1\n")
    result = workspace.run("run", "hi")
    assert result.returncode == 1
    assert "attempt 1 of 2" in result.stderr
    assert f"127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


@one_protocol
def test_rejected_key_is_reported_without_leaking_it(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply.error(401, "authentication_error", "invalid x-api-key"))
    result = workspace.run("run", "hi")
    assert result.returncode == 1
    assert "401" in result.stderr
    assert "sk-test-secret-123" not in result.stderr + result.stdout


@one_protocol
def test_empty_prompt_and_missing_folder(workspace: Workspace) -> None:
    empty = workspace.run("run", "   ")
    assert empty.returncode == 2
    assert "prompt is empty" in empty.stderr
    folder = workspace.run("run", "--cwd", "/no/such/folder", "hi")
    assert folder.returncode == 2
    assert "/no/such/folder" in folder.stderr


@one_protocol
def test_continue_without_an_earlier_session(workspace: Workspace) -> None:
    result = workspace.run("run", "--continue", "hi")
    assert result.returncode == 2
    assert "No earlier session" in result.stderr


@one_protocol
def test_a_bad_tool_call_becomes_an_error_the_model_reads(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(
            tool_calls=[("teleport", {"to": "mars"}), ("read", {"path": "../../etc/passwd"}), ("read", {})]
        ),
        Reply(text="Those did not work."),
    )
    result = workspace.run("run", "try things")
    assert result.returncode == 0, result.stderr
    body = str(provider.requests[1].body)
    assert "Unknown tool 'teleport'" in body
    assert "outside the working folder" in body
    assert "Invalid arguments for read" in body


@one_protocol
def test_prompt_from_standard_input(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="read it"))
    result = workspace.run("run", "-", stdin="a prompt from a pipe")
    assert result.returncode == 0
    assert "a prompt from a pipe" in str(provider.requests[0].body)


def test_version_and_a_missing_command() -> None:
    from miniroom import __version__
    from tests.conftest import MINIROOM

    version = subprocess.run([MINIROOM, "--version"], capture_output=True, text=True, timeout=30)
    assert (version.returncode, version.stdout) == (0, f"miniroom {__version__}\n")
    bare = subprocess.run([MINIROOM], capture_output=True, text=True, timeout=30)
    assert bare.returncode == 2
    assert "run" in bare.stderr
    assert "serve" in bare.stderr


@one_protocol
def test_a_model_typo_fails_at_once_naming_the_url_and_the_model(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    # The default policy (ten attempts, a minute apart) applies: a retry would outlast the run's timeout.
    provider.script(Reply.error(404, "not_found_error", "model: test-modle"), Reply(text="never sent"))
    result = workspace.run("run", "--model", "scripted/test-modle", "hi")
    assert result.returncode == 1
    assert f"{provider.url}/v1/messages" in result.stderr
    assert "for model test-modle" in result.stderr
    assert "attempt 1 of" not in result.stderr
    assert len(provider.requests) == 1


@one_protocol
def test_an_unknown_host_fails_at_once(workspace: Workspace) -> None:
    workspace.env["MINI_BASE_URL"] = "http://no-such-host.invalid"
    result = workspace.run("run", "hi")
    assert result.returncode == 1
    assert "the host no-such-host.invalid" in result.stderr
    assert "attempt 1 of" not in result.stderr


@one_protocol
def test_the_retry_line_shows_the_wait_the_provider_asked_for(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    (workspace.project / ".miniroom").mkdir()
    (workspace.project / ".miniroom" / "retry.yml").write_text("maxAttempts: 2\nretryIntervalSeconds: 1\n")
    provider.script(Reply(status=429, headers={"retry-after": "2"}), Reply(text="made it"))
    result = workspace.run("run", "hi")
    assert result.returncode == 0, result.stderr
    assert "attempt 1 of 2 failed" in result.stderr
    assert "retrying in 2 s" in result.stderr
    assert result.stdout == "made it\n"


@pytest.mark.parametrize(
    ("stall", "variable", "said"),
    [
        (Reply(text="never", silent=True), "MINI_PROFILE_FIRST_BYTE_TIMEOUT", "sent no response within 1 s"),
        (Reply(text="never", ping_every=0.1), "MINI_PROFILE_IDLE_TIMEOUT", "sent no content for 1 s"),
    ],
    ids=["silent-server", "only-pings"],
)
def test_a_stalled_provider_is_abandoned_and_retried(
    workspace: Workspace, provider: ScriptedProvider, stall: Reply, variable: str, said: str
) -> None:
    (workspace.project / ".miniroom").mkdir()
    (workspace.project / ".miniroom" / "retry.yml").write_text("maxAttempts: 2\nretryIntervalSeconds: 1\n")
    workspace.env[variable] = "1"
    provider.script(stall, Reply(text="made it"))
    result = workspace.run("run", "hi")
    assert result.returncode == 0, result.stderr
    (retry_line,) = [line for line in result.stderr.splitlines() if "attempt 1 of 2 failed" in line]
    assert said in retry_line
    assert result.stdout == "made it\n"


@one_protocol
def test_a_runaway_tool_loop_ends_the_run_with_a_clear_message(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    workspace.env["MINI_PROFILE_MAX_MODEL_REQUESTS"] = "4"
    provider.repeat(Reply(tool_calls=[("ls", {"path": "."})]))
    result = workspace.run("run", "list it, again and again")
    assert result.returncode == 1
    assert "stopped after 4 model requests" in result.stderr
    assert len(provider.requests) == 4


@one_protocol
def test_a_request_limit_that_is_not_a_number_is_refused(workspace: Workspace) -> None:
    workspace.env["MINI_PROFILE_MAX_MODEL_REQUESTS"] = "many"
    result = workspace.run("run", "hi")
    assert result.returncode == 2
    assert "MINI_PROFILE_MAX_MODEL_REQUESTS" in result.stderr
    assert "whole number above zero" in result.stderr


@one_protocol
def test_a_thinking_suffix_that_is_not_a_level_is_refused(workspace: Workspace) -> None:
    result = workspace.run("run", "--model", "scripted/test-model:hihg", "hi")
    assert result.returncode == 2
    assert "not a thinking level (did you mean high?)" in result.stderr
    assert "off, minimal, low, medium, high, xhigh, max" in result.stderr
