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


async def test_ask_rules_and_a_hooks_ask_make_a_call_wait_for_approval(tmp_path: Path) -> None:
    asks = script(
        tmp_path,
        "asks.sh",
        'echo \'{"hookSpecificOutput": {"permissionDecision": "ask", '
        '"permissionDecisionReason": "it deploys"}}\'\n',
    )
    hooks = hooks_for(
        tmp_path,
        f"hooks:\n  - event: PreToolUse\n    matcher: fetch\n    command: {asks}\n"
        "ask: ['bash(make *)', 'write(.env)']\ndeny: ['bash(rm *)']\n",
    )
    verdict = await hooks.pre_tool(ToolCall("1", "bash", {"command": "cd x && make deploy"}))
    assert (verdict.denied, verdict.ask) == (None, '"bash(make *)" (.miniroom/hooks.yml:5)')
    assert (await hooks.pre_tool(ToolCall("2", "write", {"path": "a/.env", "content": ""}))).ask
    assert (await hooks.pre_tool(ToolCall("3", "bash", {"command": "ls"}))).ask is None
    denied = await hooks.pre_tool(ToolCall("4", "bash", {"command": "rm x && make"}))
    assert denied.denied is not None
    assert denied.ask is None
    hooked = await hooks.pre_tool(ToolCall("5", "fetch", {"url": "https://example.com"}))
    assert (hooked.ask, hooked.ask_reason) == ("a PreToolUse hook", "it deploys")


async def test_a_command_the_system_cannot_start_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    ended = await run_hook("echo a\0b", b"{}", tmp_path, 5, {"PATH": "/usr/bin:/bin"})
    assert ended == Finished(None, failure="could not start: embedded null byte")
