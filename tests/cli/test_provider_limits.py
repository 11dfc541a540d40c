"""A provider's answer and a model's settings, end to end: `miniroom run` stops at the profile's limits and
fails at once on settings no request can be made with."""

from __future__ import annotations

import json

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import Workspace

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)


@one_protocol
def test_an_endless_answer_ends_at_the_profiles_size_and_is_not_retried(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="on and ", endless=True))
    workspace.env["MINI_PROFILE_MAX_ANSWER_BYTES"] = "100000"
    result = workspace.run("run", "hi")
    assert result.returncode == 1
    assert "passed 100,000 bytes (maxAnswerBytes" in result.stderr
    assert "attempt 1 of" not in result.stderr
    assert len(provider.requests) == 1
    assert "Traceback" not in result.stderr


BROKEN_MODELS = {
    "providers": {
        "local": {
            "baseUrl": "http://127.0.0.1:99999/v1",
            "api": "openai-completions",
            "apiKey": "local",
            "headers": {"X-Team": "red\nblue"},
            "models": [{"id": "m"}],
        }
    }
}


@one_protocol
def test_config_check_reports_a_models_json_no_request_could_use(workspace: Workspace) -> None:
    workspace.agent_dir.mkdir(parents=True, exist_ok=True)
    models = workspace.agent_dir / "models.json"
    models.write_text(json.dumps(BROKEN_MODELS))
    result = workspace.run("config", "check", str(workspace.project))
    assert result.returncode == 1
    assert f"error: {models}: providers.local.baseUrl: has a port that is not a number from 1 to 65535" in (
        result.stdout
    )
    assert f"error: {models}: providers.local.headers.X-Team: holds a line break" in result.stdout
    assert "2 error(s) found." in result.stdout


@one_protocol
def test_run_fails_at_once_on_a_bad_port_without_a_retry(workspace: Workspace) -> None:
    workspace.agent_dir.mkdir(parents=True, exist_ok=True)
    (workspace.agent_dir / "models.json").write_text(json.dumps(BROKEN_MODELS))
    result = workspace.run("run", "--model", "local/m", "hi")
    assert result.returncode == 2
    assert "providers.local.baseUrl: has a port that is not a number from 1 to 65535" in result.stderr
    assert "attempt 1 of" not in result.stderr
    assert "Traceback" not in result.stderr


@one_protocol
def test_config_check_reports_a_model_variables_base_url_no_request_could_use(workspace: Workspace) -> None:
    (workspace.project / "config.yaml").write_text(
        "agents:\n  helper: {model: local, rooms: [lobby]}\nrooms:\n  lobby: {alias: lobby}\nmodels:\n"
        "  local:\n    model: custom/m\n    variables:\n      - MINI_API=openai-completions\n"
        "      - MINI_BASE_URL=http://localhost:99999/v1\n"
    )
    result = workspace.run("config", "check")
    assert result.returncode == 1, result.stdout
    assert result.stdout.splitlines() == [
        "error: config.yaml:10: models.local.variables[1]: MINI_BASE_URL: http://localhost:99999/v1 has a "
        "port that is not a number from 1 to 65535",
        "1 error(s) found.",
    ]
