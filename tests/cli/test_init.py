"""`miniroom init`: a commented config.yaml that serves as it is, the `.miniroom/` defaults, nothing ever
overwritten; and `serve` without a config.yaml says to run it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from miniroom.agent.config_yaml_check import load_checked_config
from miniroom.agent.retry import load_retry_policy
from miniroom.cli.init import ModelChoice, choose_model
from tests.conftest import MINIROOM, clean_env

FILES = ("config.yaml", ".miniroom/fetch.yml", ".miniroom/retry.yml")


def miniroom(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MINIROOM, *args],
        cwd=folder,
        env={**clean_env(folder / "mini"), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("env", "choice"),
    [
        ({}, ModelChoice("deepseek/deepseek-v4-flash", None)),
        ({"ANTHROPIC_API_KEY": "sk-ant"}, ModelChoice("anthropic/claude-sonnet-5", "ANTHROPIC_API_KEY")),
        ({"OPENAI_API_KEY": "sk-o", "DEEPSEEK_API_KEY": " "}, ModelChoice("openai/gpt-5", "OPENAI_API_KEY")),
        ({"DEEPSEEK_API_KEY": "sk-d"}, ModelChoice("deepseek/deepseek-v4-flash", "DEEPSEEK_API_KEY")),
        # a provider with no model miniroom knows gives no name to write; the next key counts
        ({"OPENROUTER_API_KEY": "k", "OPENAI_API_KEY": "k"}, ModelChoice("openai/gpt-5", "OPENAI_API_KEY")),
        ({"MODEL": "zai/glm-5", "OPENAI_API_KEY": "k"}, ModelChoice("zai/glm-5", "MODEL")),
    ],
)
def test_the_model_comes_from_the_key_that_is_set(env: dict[str, str], choice: ModelChoice) -> None:
    assert choose_model(env) == choice


def test_init_writes_a_config_that_serves_as_it_is_and_the_settings_defaults(tmp_path: Path) -> None:
    done = miniroom(tmp_path, "init")
    assert done.returncode == 0, done.stderr
    assert [f"created {name}" in done.stdout for name in FILES] == [True] * 3
    assert "No provider key is set: set DEEPSEEK_API_KEY" in done.stdout
    text = (tmp_path / "config.yaml").read_text(encoding="utf-8")
    assert "# No provider key was set when this file was written" in text
    config = load_checked_config(tmp_path / "config.yaml")
    assert list(config.agents) == ["assistant"]
    assert config.agents["assistant"].rooms == ["lobby"]
    assert config.models["default"].model == "deepseek/deepseek-v4-flash"
    assert load_retry_policy(tmp_path)[1] == [], "retry.yml is valid"
    check = miniroom(tmp_path, "config", "check")
    assert check.returncode == 0, check.stdout + check.stderr


def test_init_picks_the_model_of_the_key_that_is_set(tmp_path: Path) -> None:
    done = miniroom(tmp_path, "init", "project", ANTHROPIC_API_KEY="sk-ant-test")
    assert done.returncode == 0, done.stderr
    assert "with anthropic/claude-sonnet-5 (because ANTHROPIC_API_KEY is set)" in done.stdout
    assert "Next: cd project && miniroom serve" in done.stdout
    config = load_checked_config(tmp_path / "project" / "config.yaml")
    assert config.models["default"].model == "anthropic/claude-sonnet-5"


def test_init_never_overwrites_a_file_and_says_which_it_kept(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("agents: {}\n# mine\n", encoding="utf-8")
    done = miniroom(tmp_path, "init")
    assert done.returncode == 0, done.stderr
    assert "kept config.yaml (it exists; not changed)" in done.stdout
    assert "created .miniroom/retry.yml" in done.stdout
    assert (tmp_path / "config.yaml").read_text(encoding="utf-8") == "agents: {}\n# mine\n"
    again = miniroom(tmp_path, "init")
    assert [f"kept {name} (it exists; not changed)" in again.stdout for name in FILES] == [True] * 3


def test_init_refuses_a_file_for_a_folder(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("", encoding="utf-8")
    done = miniroom(tmp_path, "init", "taken")
    assert done.returncode == 2
    assert done.stderr == "miniroom: taken: not a folder; name the folder to write config.yaml in\n"


def test_serve_without_a_config_says_to_run_init(tmp_path: Path) -> None:
    done = miniroom(tmp_path, "serve")
    assert done.returncode == 2
    assert done.stderr.startswith("miniroom: config.yaml: no such file. Run `miniroom init` to write")
    assert "or pass --config FILE, or set MINIROOM_CONFIG" in done.stderr
    elsewhere = miniroom(tmp_path, "serve", "--config", "site/rooms.yaml")
    assert elsewhere.returncode == 2
    assert (
        "Run `miniroom init site` to write site/config.yaml with one agent in a lobby room, then pass "
        "--config site/config.yaml" in elsewhere.stderr
    )
    assert not (tmp_path / "miniroom_data").exists(), "nothing is started or written"
