"""Settings no request can be made with (a base URL, a port, a header, a key) fail at once, naming where to
fix them, and are never retried; `check_models_file` reports the same for `config check`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from miniroom.config.problems import Problem
from miniroom.llm.errors import ErrorKind
from miniroom.llm.model_name import ModelConfigError
from miniroom.llm.models_json import check_models_file
from miniroom.llm.registry import resolve_model
from tests.llm.support import anthropic_model, closed_port, collect

LOCAL = {
    "baseUrl": "http://127.0.0.1:11434/v1",
    "api": "openai-completions",
    "apiKey": "local",
    "models": [{"id": "m"}],
}


def models_file(agent_dir: Path, **changes: Any) -> Path:
    path = agent_dir / "models.json"
    path.write_text(json.dumps({"providers": {"local": {**LOCAL, **changes}}}))
    return path


def resolve_error(agent_dir: Path, env: dict[str, str] | None = None, name: str = "local/m") -> str:
    with pytest.raises(ModelConfigError) as caught:
        resolve_model(name, env or {}, agent_dir)
    return str(caught.value)


BAD_SETTINGS = [
    ({"baseUrl": "http://127.0.0.1:99999/v1"}, "local.baseUrl: has a port that is not a number from 1"),
    ({"baseUrl": "http://exa mple.com/v1"}, "local.baseUrl: holds a space"),
    ({"baseUrl": "http://[::1/v1"}, "local.baseUrl: is not a valid URL"),
    ({"headers": {"X Team": "a"}}, "local.headers[\"X Team\"]: 'X Team' is not an HTTP header name"),
    ({"headers": {"X-Team": "a\nb"}}, "local.headers.X-Team: holds a line break"),
    ({"headers": {"X-Team": "équipe"}}, "local.headers.X-Team: holds the character 'é', beyond ASCII"),
    ({"models": [{"id": "m", "headers": {"X:y": "1"}}]}, "local.models[0].headers[\"X:y\"]: 'X:y' is not"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "expected"),
    BAD_SETTINGS,
    ids=["port", "space", "ipv6", "name", "line-break", "non-ascii", "model"],
)
def test_a_setting_no_request_can_carry_fails_at_once_naming_its_place(
    tmp_path: Path, changes: dict[str, Any], expected: str
) -> None:
    path = models_file(tmp_path, **changes)
    message = resolve_error(tmp_path)
    assert message.startswith(f"{path} is not a valid models.json")
    assert expected in message
    (problem,) = check_models_file(path)
    assert problem.path == path
    assert expected in f"{problem.key}: {problem.message}"


def test_check_models_file_passes_a_good_file_and_reports_unreadable_json(tmp_path: Path) -> None:
    assert check_models_file(tmp_path / "models.json") == []  # none: nothing to check
    path = models_file(tmp_path)
    assert check_models_file(path) == []
    path.write_text('{"providers": {,}}')
    assert check_models_file(path) == [
        Problem(path, 1, "", "not valid JSON: unexpected character, expected a string key (column 16).")
    ]


def test_a_base_url_from_the_environment_is_checked_too(tmp_path: Path) -> None:
    env = {"MINI_BASE_URL": "http://localhost:99999", "MINI_API": "openai-completions", "MINI_API_KEY": "k"}
    message = resolve_error(tmp_path, env, "x/m")
    assert message == "MINI_BASE_URL has a port that is not a number from 1 to 65535."


def test_a_header_value_from_a_variable_is_checked_and_not_shown(tmp_path: Path) -> None:
    path = models_file(tmp_path, headers={"X-Team": "$TEAM"})
    message = resolve_error(tmp_path, {"TEAM": "red\x01secret"})
    assert message == (
        f"{path}: providers.local.headers.X-Team: the variable TEAM it names holds the control character "
        "'\\x01', which an HTTP header cannot carry: fix the value."
    )


def test_a_key_no_header_can_carry_fails_at_once_and_is_not_shown(tmp_path: Path) -> None:
    models_file(tmp_path, apiKey="LOCAL_KEY")
    message = resolve_error(tmp_path, {"LOCAL_KEY": "sk-1234\nsk-5678"})
    assert "The API key for local/m in LOCAL_KEY holds a line break" in message
    assert "sk-1234" not in message


BROKEN_MODELS = [
    ({"base_url": "http://127.0.0.1:99999"}, "base URL http://127.0.0.1:99999 has a port that is not"),
    ({"base_url": "http://[::1"}, "base URL http://[::1 is not a valid URL"),
    ({"headers": (("X Team", "a"),)}, "header 'X Team' is not an HTTP header name"),
    ({"headers": (("X-Team", "é"),)}, "header X-Team holds the character 'é', beyond ASCII"),
    ({"api_key": "sk-1\n2"}, "API key holds a line break"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "expected"),
    BROKEN_MODELS,
    ids=["port", "ipv6", "header-name", "header-value", "key"],
)
async def test_a_request_no_server_could_take_is_not_sent_nor_retried(
    changes: dict[str, Any], expected: str
) -> None:
    # A Model made by other means than models.json still never reaches the network with such a setting.
    others = dict(changes)
    model = anthropic_model(others.pop("base_url", f"http://127.0.0.1:{closed_port()}"), **others)
    _, done = await collect(model)
    assert done.error is not None
    assert done.error.kind is ErrorKind.SETTINGS
    assert not done.error.retryable
    assert expected in done.error.message, done.error.message
    assert "sk-1" not in done.error.message
