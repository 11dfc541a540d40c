"""The engine's `TurnHooks` for a project's hooks.yml: deny rules first, then the matching commands, all of
an event's at once, in the project folder; an ask rule or a hook's `ask` makes the call wait for approval."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from miniroom.engine import ALLOW, PASS, CompactTrigger, PromptVerdict, ToolResult, ToolVerdict
from miniroom.hooks.config import HookRule, HookSettings
from miniroom.hooks.deny import denying_rule
from miniroom.hooks.outcome import Outcome, combine, interpret
from miniroom.hooks.payloads import SessionFacts, payload, stop_fields, tool_fields, tool_response
from miniroom.hooks.runner import run_hook
from miniroom.llm import AssistantMessage, ToolCall
from miniroom.tools import child_environment

log = logging.getLogger(__name__)

PROJECT_DIR_VARIABLE = "MINIROOM_PROJECT_DIR"  # set for hook commands, as Claude Code sets CLAUDE_PROJECT_DIR
MAX_CONTINUATIONS = 8  # Stop hooks sending the model on, in one turn, before it may stop regardless


def _name(rule: HookRule) -> str:
    command = rule.command if len(rule.command) <= 60 else rule.command[:59] + "…"
    return f"{rule.where} ({command})"


class ProjectHooks:
    """Runs hooks.yml's rules at the events of one session's turns."""

    def __init__(self, settings: HookSettings, facts: SessionFacts, project_dir: Path) -> None:
        self.settings, self.facts, self.project_dir = settings, facts, project_dir
        self._env = child_environment() | {PROJECT_DIR_VARIABLE: str(project_dir)}

    async def fire(self, event: str, value: str | None, **fields: Any) -> Outcome:
        """Run the rules of `event` that match `value`, at once; what they decided together."""
        rules = self.settings.for_event(event, value)
        if not rules:
            return Outcome()
        stdin = json.dumps(payload(self.facts, event, **fields), ensure_ascii=False).encode()
        runs = (run_hook(rule.command, stdin, self.project_dir, rule.timeout, self._env) for rule in rules)
        finished = await asyncio.gather(*runs)
        for rule, end in zip(rules, finished, strict=True):
            log.debug("hook %s (%s) ended: %s; stdout: %s", _name(rule), event, end.exit_code, end.stdout)
        outcome = combine(
            [interpret(event, end, _name(rule)) for rule, end in zip(rules, finished, strict=True)]
        )
        for notice in outcome.notices:
            log.warning("%s", notice)
        return outcome

    async def session_start(self, resumed: bool) -> str:
        source = "resume" if resumed else "startup"
        return (await self.fire("SessionStart", source, source=source, model=self.facts.model)).context

    async def user_prompt(self, text: str) -> PromptVerdict:
        outcome = await self.fire("UserPromptSubmit", None, prompt=text)
        if outcome.block is not None:
            return PromptVerdict(blocked=f"A UserPromptSubmit hook blocked this message: {outcome.block}")
        return PromptVerdict(context=outcome.context) if outcome.context else PASS

    async def pre_tool(self, call: ToolCall) -> ToolVerdict:
        rule = denying_rule(self.settings.deny, call.name, call.arguments, self.facts.cwd)
        if rule is not None:
            return ToolVerdict(denied=rule.refusal())
        outcome = await self.fire("PreToolUse", call.name, **tool_fields(call))
        if outcome.block is not None:
            return ToolVerdict(denied=f"A PreToolUse hook blocked this call: {outcome.block}")
        arguments = call.arguments if outcome.updated_input is None else outcome.updated_input
        asking = denying_rule(self.settings.ask, call.name, arguments, self.facts.cwd)
        ask, reason = (asking.name(), "") if asking is not None else (None, "")
        if outcome.ask is not None:
            ask, reason = ask or "a PreToolUse hook", outcome.ask
        if not outcome.context and outcome.updated_input is None and ask is None:
            return ALLOW
        return ToolVerdict(
            context=outcome.context, arguments=outcome.updated_input, ask=ask, ask_reason=reason
        )

    async def post_tool(self, call: ToolCall, result: ToolResult) -> str:
        fields = tool_fields(call) | {"tool_response": tool_response(result)}
        return (await self.fire("PostToolUse", call.name, **fields)).context

    async def stop(self, message: AssistantMessage, continuations: int) -> str | None:
        return await self._go_on("Stop", None, message.text, continuations)

    async def subagent_stop(
        self, agent: tuple[str, str, Path], last_message: str, continuations: int
    ) -> str | None:
        """For the `agent` tool when a child agent ends (`agent`: its id, type and session file)."""
        agent_id, agent_type, transcript = agent
        fields = {"agent_id": agent_id, "agent_type": agent_type, "agent_transcript_path": str(transcript)}
        return await self._go_on("SubagentStop", agent_type, last_message, continuations, **fields)

    async def _go_on(
        self, event: str, value: str | None, last_message: str, continuations: int, **fields: Any
    ) -> str | None:
        if continuations >= MAX_CONTINUATIONS:
            log.warning("%s hooks sent the model on %d times in a row; it stops now", event, continuations)
            return None
        outcome = await self.fire(event, value, **stop_fields(last_message, continuations > 0), **fields)
        return f"{event} hook feedback:\n{outcome.block}" if outcome.block is not None else None

    async def pre_compact(self, trigger: CompactTrigger) -> bool:
        outcome = await self.fire("PreCompact", trigger, trigger=trigger, custom_instructions="")
        if outcome.block is not None:
            log.warning("A PreCompact hook blocked the compaction: %s", outcome.block)
        return outcome.block is None


SUBAGENT_TYPE = "general-purpose"  # the one kind of subagent the `agent` tool starts (SubagentStop's matcher)


class SubagentHooks(ProjectHooks):
    """A subagent's hooks: its own events run no commands, but the deny rules bind it; its end is the
    project's SubagentStop event, whose hooks may send it on."""

    async def fire(self, event: str, value: str | None, **fields: Any) -> Outcome:
        if event != "SubagentStop":
            return Outcome()
        return await super().fire(event, value, **fields)

    async def stop(self, message: AssistantMessage, continuations: int) -> str | None:
        child = (self.facts.session_id, SUBAGENT_TYPE, self.facts.transcript_path)
        return await self.subagent_stop(child, message.text, continuations)
