"""hooks.yml's rules at the events the loop does not reach through `miniroom run` alone, with real scripts:
SubagentStop (for the `agent` tool), PreCompact, and a JSON decision."""

from __future__ import annotations

import json
from pathlib import Path

from miniroom.hooks.config import load_hooks
from miniroom.hooks.payloads import SessionFacts
from miniroom.hooks.project_hooks import MAX_CONTINUATIONS, ProjectHooks
from miniroom.hooks.runner import run_hook
from miniroom.llm import ToolCall
from miniroom.tools.process import Finished
from tests.agent_runs import write_settings


def hooks_for(project: Path, text: str) -> ProjectHooks:
    write_settings(project, "hooks.yml", text)
    settings, problems = load_hooks(project)
    assert problems == []
    return ProjectHooks(settings, SessionFacts("s-1", project / "s.jsonl", project, "m/x"), project)


def script(project: Path, name: str, body: str) -> str:
    path = project / name
    path.write_text(f"#!/bin/sh\n{body}")
    path.chmod(0o755)
    return f"./{name}"


async def test_a_subagent_stop_hook_sends_the_subagent_on(tmp_path: Path) -> None:
    check = script(tmp_path, "check.sh", 'cat > payload.json\necho "summarize first" >&2\nexit 2\n')
    hooks = hooks_for(
        tmp_path, f"hooks:\n  - event: SubagentStop\n    matcher: general\n    command: {check}\n"
    )
    child = ("a-7", "general", tmp_path / "child.jsonl")
    assert await hooks.subagent_stop(child, "half done", 0) == "SubagentStop hook feedback:\nsummarize first"
    payload = json.loads((tmp_path / "payload.json").read_text())
    assert payload == {
        "session_id": "s-1",
        "transcript_path": str(tmp_path / "s.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "last_assistant_message": "half done",
        "agent_id": "a-7",
        "agent_type": "general",
        "agent_transcript_path": str(tmp_path / "child.jsonl"),
    }
    assert await hooks.subagent_stop(("a-8", "explore", child[2]), "done", 0) is None  # not matched
    assert await hooks.subagent_stop(child, "done", MAX_CONTINUATIONS) is None  # enough going on


async def test_a_pre_compact_hook_blocks_the_compactions_it_matches(tmp_path: Path) -> None:
    block = script(tmp_path, "block.sh", 'echo \'{"decision": "block"}\'\n')
    hooks = hooks_for(tmp_path, f"hooks:\n  - event: PreCompact\n    matcher: auto\n    command: {block}\n")
    assert await hooks.pre_compact("auto") is False
    assert await hooks.pre_compact("manual") is True


async def test_a_json_decision_denies_a_call_and_deny_rules_come_first(tmp_path: Path) -> None:
    decide = script(
        tmp_path,
        "decide.sh",
        "touch asked\n"
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", '
        '"permissionDecisionReason": "not on Fridays"}}\'\n',
    )
    hooks = hooks_for(
        tmp_path, f"hooks:\n  - event: PreToolUse\n    command: {decide}\ndeny: ['write(*.lock)']\n"
    )
    refused = await hooks.pre_tool(ToolCall("1", "write", {"path": "uv.lock", "content": ""}))
    assert (refused.denied or "").startswith('Denied by the rule "write(*.lock)"')
    assert not (tmp_path / "asked").exists()  # a denied call asks no hook
    verdict = await hooks.pre_tool(ToolCall("2", "bash", {"command": "ls"}))
    assert verdict.denied == "A PreToolUse hook blocked this call: not on Fridays"


async def test_a_command_the_system_cannot_start_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    ended = await run_hook("echo a\0b", b"{}", tmp_path, 5, {"PATH": "/usr/bin:/bin"})
    assert ended == Finished(None, failure="could not start: embedded null byte")
