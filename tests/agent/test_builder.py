"""`build_agent` for an agent whose settings folder is not its working folder (agents under `serve`)."""

from __future__ import annotations

from pathlib import Path

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.agent.minimal import CliMode
from miniroom.agent.options import AgentOptions
from miniroom.agent.prompt import FORMS_PROMPT
from miniroom.engine import ToolContext
from miniroom.engine.session import Session
from miniroom.tools import BUILTIN_TOOL_NAMES
from miniroom.tools.bash import BashTool
from miniroom.tools.declared import DeclaredTool

ENV = {
    "MODEL": "scripted/test-model",
    "MINI_BASE_URL": "http://127.0.0.1:9",
    "MINI_API": "anthropic-messages",
    "MINI_API_KEY": "sk-test",
    "AGENT_BACKEND": "mini:safe",
}


def test_settings_come_from_project_dir_and_the_caller_narrows_tools_and_extends_the_prompt(
    tmp_path: Path,
) -> None:
    project, work = tmp_path / "project", tmp_path / "work"
    (project / ".miniroom").mkdir(parents=True)
    (project / ".miniroom" / "miniagent.yml").write_text(
        "profiles:\n  safe:\n    disabledTools: [bash]\n    toolCallTimeout: 42\n", encoding="utf-8"
    )
    work.mkdir()
    env = {**ENV, "MINI_AGENT_DIR": str(tmp_path / "mini")}
    session = SessionChoice(path=tmp_path / "sessions" / "room_0f3c.jsonl")
    agent = build_agent(
        None,
        work,
        env,
        session,
        options=AgentOptions(
            project_dir=project,
            extra_prompt="You answer in the lobby.",
            tool_allowlist=["read", "bash", "ls"],
        ),
    )
    agent.session.close()
    # fetch (fetch.yml's) and the subagent tools join every root chat: no tool list filters them
    assert [tool.name for tool in agent.config.tools] == [
        "read", "ls", "fetch", "agent", "agent_start", "agent_check", "agent_stop",
    ]  # fmt: skip
    assert agent.config.tool_timeout == 42
    assert agent.config.cwd == work
    assert agent.config.system_prompt.endswith("\n\nYou answer in the lobby.")
    assert Session.load(tmp_path / "sessions" / "room_0f3c.jsonl").id == "0f3c"


def test_without_project_dir_the_working_folder_holds_the_settings(tmp_path: Path) -> None:
    (tmp_path / ".miniroom").mkdir()
    (tmp_path / ".miniroom" / "miniagent.yml").write_text(
        "profiles:\n  safe:\n    enabledTools: [read]\n", encoding="utf-8"
    )
    env = {**ENV, "MINI_AGENT_DIR": str(tmp_path / "mini")}
    agent = build_agent(None, tmp_path, env, SessionChoice())
    agent.session.close()
    assert [tool.name for tool in agent.config.tools if tool.name in BUILTIN_TOOL_NAMES] == ["read"]
    assert "fetch" in [tool.name for tool in agent.config.tools]


def test_the_forms_syntax_stays_in_the_prompt_when_a_profile_replaces_the_built_in_prompt(
    tmp_path: Path,
) -> None:
    (tmp_path / ".miniroom").mkdir()
    (tmp_path / ".miniroom" / "miniagent.yml").write_text(
        "profiles:\n  safe:\n    systemPrompt: You are terse.\n", encoding="utf-8"
    )
    env = {**ENV, "MINI_AGENT_DIR": str(tmp_path / "mini"), "AGENT_BACKEND": "mini:safe"}
    agent = build_agent(None, tmp_path, env, SessionChoice())
    agent.session.close()
    assert agent.config.system_prompt.startswith("You are terse.")
    assert FORMS_PROMPT in agent.config.system_prompt


def test_a_minimal_agents_bash_stops_after_the_profiles_minimal_bash_timeout(tmp_path: Path) -> None:
    (tmp_path / ".miniroom").mkdir()
    (tmp_path / ".miniroom" / "miniagent.yml").write_text(
        "profiles:\n  safe:\n    minimalBashTimeout: 7\n", encoding="utf-8"
    )
    env = {**ENV, "MINI_AGENT_DIR": str(tmp_path / "mini")}
    options = AgentOptions(command_line=CliMode(minimal=True))
    agent = build_agent(None, tmp_path, env, SessionChoice(), options=options)
    agent.session.close()
    [bash] = agent.config.tools
    assert isinstance(bash, DeclaredTool)
    assert isinstance(bash.built, BashTool)
    assert bash.built.default_timeout(ToolContext(tmp_path)) == 7
    assert "stops after 7 s" in agent.config.system_prompt


def test_a_sandboxed_agent_is_told_what_its_shell_may_do(tmp_path: Path) -> None:
    env = {**ENV, "MINI_AGENT_DIR": str(tmp_path / "mini"), "MINI_PROFILE_SANDBOX": "workspace"}
    env.pop("AGENT_BACKEND", None)
    agent = build_agent(None, tmp_path, env, SessionChoice())
    agent.session.close()
    assert agent.config.system_prompt.endswith(
        "Shell commands run in a sandbox: only the working folder (not .git's config and hooks, .miniroom, "
        "CLAUDE.md, AGENTS.md) and /tmp are writable, the home folder is hidden, there is no network, and "
        "background jobs end when the command returns."
    )
    plain = build_agent(None, tmp_path, {**env, "MINI_PROFILE_SANDBOX": "off"}, SessionChoice())
    plain.session.close()
    assert "Shell commands run in a sandbox" not in plain.config.system_prompt
