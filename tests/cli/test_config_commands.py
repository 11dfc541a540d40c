"""`miniroom profile show` and `miniroom config check`, run as a user runs them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from miniroom.agent.profile import SETTING_NAMES
from tests.conftest import Workspace

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)

PROFILES = """\
profiles:
  safe:
    disabledTools:
      - bash
    toolCallTimeout: 60
    readMaxLines: 40
  readonly:
    enabledTools: [read, grep, ls]
"""
ALL_KEYS = {
    "loadClaudeMd", "loadAgentsMd", "enabledTools", "disabledTools", "toolCallTimeout", "firstByteTimeout",
    "idleTimeout", "maxModelRequests", "maxOutputTokens",
    "thinkingBudget", "thinkingLevel", "parallelBashThreads", "readMaxLines", "maxParallelAgents",
    "systemPrompt", "sessionHeader", "minimalBashTimeout", "answerTimeout", "maxAnswerBytes", "sandbox",
    "sandboxNetwork", "approvalTimeout",
}  # fmt: skip


def write(workspace: Workspace, name: str, text: str) -> None:
    folder = workspace.project / ".miniroom"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)


def show(workspace: Workspace, *args: str) -> dict[str, Any]:
    result = workspace.run("profile", "show", *args)
    assert result.returncode == 0, result.stderr
    shown: dict[str, Any] = json.loads(result.stdout)
    return shown


# profile show


@one_protocol
def test_profile_show_gives_every_setting_with_its_value_and_source(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", PROFILES)
    workspace.env["MINI_PROFILE_TOOL_CALL_TIMEOUT"] = "120"
    shown = show(workspace, "safe")
    assert shown["profile"] == "safe"
    settings = shown["settings"]
    assert set(settings) == ALL_KEYS
    assert len(settings) == len(SETTING_NAMES)
    assert settings["disabledTools"] == {"value": ["bash"], "source": "profile"}
    assert settings["readMaxLines"] == {"value": 40, "source": "profile"}
    assert settings["toolCallTimeout"] == {"value": 120, "source": "env"}  # the variable beats the profile
    assert settings["enabledTools"] == {"value": None, "source": "default"}
    assert settings["loadClaudeMd"] == {"value": True, "source": "default"}
    assert settings["parallelBashThreads"] == {"value": 5, "source": "default"}
    assert settings["thinkingBudget"] == {"value": 65536, "source": "default"}
    assert settings["maxParallelAgents"] == {"value": 4, "source": "default"}
    assert shown["warnings"] == []


@one_protocol
def test_profile_show_gives_the_rules_that_ask_for_approval(workspace: Workspace) -> None:
    assert (show(workspace)["ask"], show(workspace)["deny"]) == ([], [])
    write(workspace, "hooks.yml", "deny: ['bash(rm *)']\nask:\n  - bash\n  - write(.env)\n")
    shown = show(workspace)
    assert shown["ask"] == [
        {"rule": "bash", "where": ".miniroom/hooks.yml:3"},
        {"rule": "write(.env)", "where": ".miniroom/hooks.yml:4"},
    ]
    assert shown["deny"] == [{"rule": "bash(rm *)", "where": ".miniroom/hooks.yml:1"}]
    assert shown["settings"]["approvalTimeout"] == {"value": 900, "source": "default"}
    write(workspace, "hooks.yml", "ask: ['bash((']\n")
    broken = show(workspace)
    assert broken["ask"] == []
    assert any('ask[0]: "bash((" is not an ask rule' in warning for warning in broken["warnings"])


@one_protocol
def test_profile_show_lists_the_tools_and_no_bash_means_no_parallel_bash(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", PROFILES)
    assert show(workspace, "safe")["tools"] == [
        "read", "edit", "write", "grep", "find", "glob", "ls", "load_skill", "todo_write",
    ]  # fmt: skip
    workspace.env["MINI_PROFILE_ENABLED_TOOLS"] = "read,parallel_bash"
    shown = show(workspace)
    assert shown["tools"] == ["read"]
    assert shown["warnings"] == [
        "enabledTools from MINI_PROFILE_ENABLED_TOOLS in the process environment lists parallel_bash but not "
        "bash: parallel_bash runs bash commands, so it is off too; add bash to allow both, or remove "
        "parallel_bash."
    ]


@one_protocol
def test_profile_show_without_a_name_follows_agent_backend(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", PROFILES)
    workspace.env["AGENT_BACKEND"] = "Mini:ReadOnly"
    shown = show(workspace)
    assert shown["profile"] == "readonly"
    assert shown["settings"]["enabledTools"] == {"value": ["read", "grep", "ls"], "source": "profile"}
    del workspace.env["AGENT_BACKEND"]
    defaults = show(workspace)
    assert defaults["profile"] is None
    assert {item["source"] for item in defaults["settings"].values()} == {"default"}
    assert defaults["settings"]["toolCallTimeout"]["value"] == 300
    assert defaults["settings"]["readMaxLines"]["value"] == 500


@one_protocol
def test_profile_show_an_empty_variable_is_unset(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", PROFILES)
    workspace.env["MINI_PROFILE_READ_MAX_LINES"] = ""
    workspace.env["MINI_PROFILE_SYSTEM_PROMPT"] = ""
    settings = show(workspace, "safe")["settings"]
    assert settings["readMaxLines"] == {"value": 40, "source": "profile"}
    assert settings["systemPrompt"] == {"value": None, "source": "default"}


@one_protocol
def test_profile_show_an_env_list_replaces_the_profile_list(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", PROFILES)
    workspace.env["MINI_PROFILE_ENABLED_TOOLS"] = "read,write"
    settings = show(workspace, "safe")["settings"]
    assert settings["enabledTools"] == {"value": ["read", "write"], "source": "env"}
    assert settings["disabledTools"]["value"] is None  # never both lists at once


@one_protocol
def test_profile_show_a_missing_profile_exits_with_the_profiles_there(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", PROFILES)
    result = workspace.run("profile", "show", "nosuch")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Profile 'nosuch' (AGENT_BACKEND=mini:nosuch) is not in .miniroom/miniagent.yml" in result.stderr


@one_protocol
def test_profile_show_reports_a_broken_file(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", "profiles:\n  safe:\n    toolCallTimeout: soon\n")
    result = workspace.run("profile", "show", "safe")
    assert result.returncode == 2
    assert "miniagent.yml:3: profiles.safe.toolCallTimeout:" in result.stderr
    assert result.stdout == ""


@one_protocol
def test_profile_show_both_list_variables_is_an_error(workspace: Workspace) -> None:
    workspace.env["MINI_PROFILE_ENABLED_TOOLS"] = "read"
    workspace.env["MINI_PROFILE_DISABLED_TOOLS"] = "bash"
    result = workspace.run("profile", "show")
    assert result.returncode == 2
    assert "MINI_PROFILE_ENABLED_TOOLS" in result.stderr
    assert "MINI_PROFILE_DISABLED_TOOLS" in result.stderr


# config check

PROBLEM_LINE = re.compile(r"^(error|warning): (\S+):(\d+): ([\w.\[\] -]+): (.+)$")


@one_protocol
def test_config_check_reports_each_problem_as_file_line_key_message(workspace: Workspace) -> None:
    write(
        workspace,
        "miniagent.yml",
        "profiles:\n"
        "  safe:\n"
        "    disabledTools: [bash]\n"
        "    toolCallTimeout: -5\n"
        "  both:\n"
        "    enabledTools: [read]\n"
        "    disabledTools: [bash]\n"
        "  odd:\n"
        "    enabledTools: [reed]\n",
    )
    write(workspace, "retry.yml", "retryIntervalSeconds: 1\nmaxAttempts: 0\nbackoff: 2\n")
    result = workspace.run("config", "check", str(workspace.project), timeout=30)
    assert result.returncode == 1, result.stdout
    problems = [PROBLEM_LINE.match(line) for line in result.stdout.splitlines()[:-1]]
    assert all(problems), result.stdout
    found = {(Path(m[2]).name, int(m[3]), m[4]) for m in problems if m}
    assert ("miniagent.yml", 4, "profiles.safe.toolCallTimeout") in found
    assert ("miniagent.yml", 9, "profiles.odd.enabledTools[0]") in found
    assert any(name == "miniagent.yml" and key.startswith("profiles.both") for name, _, key in found)
    assert ("retry.yml", 2, "maxAttempts") in found
    assert ("retry.yml", 3, "backoff") in found
    assert "did you mean read?" in result.stdout
    assert result.stdout.splitlines()[-1] == f"{len(problems)} error(s) found."


@one_protocol
def test_config_check_passes_a_clean_project(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", PROFILES)
    write(workspace, "retry.yml", "retryIntervalSeconds: 5\nmaxAttempts: 3\n")
    result = workspace.run("config", "check", str(workspace.project))
    assert result.returncode == 0, result.stdout
    assert result.stdout == "All settings files are valid.\n"


@one_protocol
def test_config_check_names_a_bad_memory_setting(workspace: Workspace) -> None:
    config = "agents:\n  helper:\n    memory: MEMORY.md\n"
    (workspace.project / "config.yaml").write_text(config, encoding="utf-8")
    result = workspace.run("config", "check", str(workspace.project))
    assert result.returncode == 1, result.stdout
    problem = "config.yaml:3: agents.helper.memory: must be 'none' or 'file' (got \"MEMORY.md\")"
    assert problem in result.stdout


@one_protocol
def test_config_check_says_when_there_is_nothing_to_check(workspace: Workspace) -> None:
    result = workspace.run("config", "check")  # DIR defaults to the current folder
    assert result.returncode == 0, result.stdout
    assert result.stdout == (
        "No settings files found in . (looked for .miniroom/miniagent.yml, .miniroom/retry.yml, "
        ".miniroom/fetch.yml, .miniroom/search.yml, .miniroom/mcp.yml, .miniroom/hooks.yml, config.yaml); "
        "nothing to check.\n"
    )


@one_protocol
def test_config_check_warnings_alone_do_not_fail(workspace: Workspace) -> None:
    write(workspace, "miniagent.yml", "profiles:\n  open:\n    disabledTools: []\n")
    result = workspace.run("config", "check", str(workspace.project))
    assert result.returncode == 0, result.stdout
    assert re.search(r"^warning: \S+miniagent.yml:3: profiles.open.disabledTools: ", result.stdout, re.M)


@one_protocol
def test_config_check_a_missing_folder(workspace: Workspace) -> None:
    result = workspace.run("config", "check", str(workspace.project / "nowhere"))
    assert result.returncode == 2
    assert "nowhere" in result.stderr
