"""A model's `variables:` in config.yaml, checked by `config check` and `serve` as the runtime reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.agent.config_yaml_check import load_config
from miniroom.rooms.runtime.agents import profile_problems
from tests.conftest import Workspace

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)

PROFILES = "profiles:\n  safe:\n    disabledTools: [bash]\n  readonly:\n    enabledTools: [read]\n"
CONFIG = """\
agents:
  helper:
    model: default
    rooms: [lobby]
rooms:
  lobby: {alias: lobby}
models:
  default:
    model: anthropic/claude-sonnet-5:medium
    variables:
      - MINI_PROFILE_READ_MAX_LINES=40
      - AGENT_BACKEND=mini:nosuch
      - MINI_PROFILE_TOOL_CALL_TIMEOUT=abc
      - MINI_PROFILE_ENABLED_TOOLS=read
      - MINI_PROFILE_DISABLED_TOOLS=bash
      - MINI_PROFILE_TOOL_TIMEOUT=60
  fine:
    model: anthropic/claude-sonnet-5:medium
    variables: ["AGENT_BACKEND=mini:safe"]
"""
EXPECTED = [
    "config.yaml:12: models.default.variables[1]: AGENT_BACKEND: mini:nosuch names the profile 'nosuch', "
    "which .miniroom/miniagent.yml does not have (profiles there: readonly, safe): name one of those, or "
    "add 'nosuch' to the file",
    "config.yaml:13: models.default.variables[2]: MINI_PROFILE_TOOL_CALL_TIMEOUT: must be a whole number "
    'above zero, got "abc"',
    "config.yaml:15: models.default.variables[4]: MINI_PROFILE_DISABLED_TOOLS: MINI_PROFILE_ENABLED_TOOLS "
    "is set too; set only one, the allowlist or the denylist",
    "config.yaml:16: models.default.variables[5]: MINI_PROFILE_TOOL_TIMEOUT: is not a profile setting, so "
    "nothing reads it (did you mean MINI_PROFILE_TOOL_CALL_TIMEOUT?)",
]


def write_project(folder: Path, config: str = CONFIG) -> None:
    (folder / ".miniroom").mkdir(exist_ok=True)
    (folder / ".miniroom" / "miniagent.yml").write_text(PROFILES, encoding="utf-8")
    (folder / "config.yaml").write_text(config, encoding="utf-8")


@one_protocol
def test_config_check_reports_each_bad_model_variable_at_its_line(workspace: Workspace) -> None:
    write_project(workspace.project)
    result = workspace.run("config", "check")
    assert result.returncode == 1, result.stdout
    assert result.stdout.splitlines() == [*(f"error: {line}" for line in EXPECTED), "4 error(s) found."]


@one_protocol
def test_serve_refuses_to_start_with_the_same_message(workspace: Workspace) -> None:
    write_project(workspace.project)
    result = workspace.run("serve", "--config", "config.yaml", "--port", "0")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"miniroom: {EXPECTED[0]}", *EXPECTED[1:]]
    assert not (workspace.project / "miniroom_data").exists()


@one_protocol
def test_a_profile_name_checks_against_the_folder_of_config_yaml(workspace: Workspace) -> None:
    elsewhere = workspace.project / "deploy"
    elsewhere.mkdir()
    write_project(workspace.project, CONFIG.split("  default:")[0] + "  default:\n    model: x/y\n"
                  "    variables: [AGENT_BACKEND=mini:safe]\n")  # fmt: skip
    (elsewhere / "config.yaml").write_text((workspace.project / "config.yaml").read_text(), encoding="utf-8")
    assert workspace.run("config", "check").returncode == 0
    result = workspace.run("config", "check", "--config", str(elsewhere / "config.yaml"))
    assert result.returncode == 1
    assert f"which {elsewhere / '.miniroom' / 'miniagent.yml'} does not have (profiles there: none)" in (
        result.stdout
    )


@one_protocol
def test_config_check_reports_a_missing_config_file_it_was_given(workspace: Workspace) -> None:
    result = workspace.run("config", "check", "--config", "nowhere.yaml")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "error: nowhere.yaml: no such file; pass --config or set MINIROOM_CONFIG",
        "1 error(s) found.",
    ]


@one_protocol
def test_every_problem_of_config_yaml_counts(workspace: Workspace) -> None:
    (workspace.project / "config.yaml").write_text("agents:\n  a: {model: m1}\n  b: {model: m2}\n")
    result = workspace.run("config", "check")
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == "2 error(s) found."


@one_protocol
def test_profile_show_names_the_model_and_the_line_of_a_bad_variable(workspace: Workspace) -> None:
    write_project(workspace.project)
    assert workspace.run("profile", "show", "--model", "fine").returncode == 0
    result = workspace.run("profile", "show", "--model", "default")
    assert result.returncode == 2
    lines = result.stderr.replace(f"{workspace.project}/", "").splitlines()
    assert lines == [f"miniroom: {EXPECTED[0]}", *EXPECTED[1:]]


@one_protocol
def test_serve_checks_the_profile_settings_of_the_process_environment_at_start(workspace: Workspace) -> None:
    write_project(workspace.project, CONFIG.split("models:")[0] + "models:\n  default:\n    model: x/y\n")
    workspace.env["MINI_PROFILE_TOOL_CALL_TIMEOUT"] = "abc"
    refused = workspace.run("serve", "--config", "config.yaml", "--port", "0")
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        "miniroom: Agent helper: MINI_PROFILE_TOOL_CALL_TIMEOUT in the process environment: must be a whole "
        'number above zero, got "abc"'
    ]
    assert not (workspace.project / "miniroom_data").exists()


def test_a_process_profile_name_the_project_lacks_is_a_start_error_naming_the_agents(
    tmp_path: Path,
) -> None:
    two_agents = "agents:\n  a: {model: m, rooms: [r]}\n  b: {model: m, rooms: [r]}\nrooms:\n  r: {}\n"
    write_project(tmp_path, two_agents + "models:\n  m: {model: x/y}\n")
    config = load_config(tmp_path / "config.yaml")
    errors, warnings = profile_problems(config, {"AGENT_BACKEND": "mini:nosuch"}, tmp_path)
    assert warnings == []
    assert errors == [
        "Agents a, b: Profile 'nosuch' (AGENT_BACKEND=mini:nosuch) is not in .miniroom/miniagent.yml "
        "(profiles there: readonly, safe): name one of those, or add it to the file; miniroom does not fall "
        "back to the built-in defaults, which allow every tool."
    ]
    assert profile_problems(config, {"AGENT_BACKEND": "mini:safe"}, tmp_path) == ([], [])
