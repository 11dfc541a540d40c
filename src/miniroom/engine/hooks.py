"""The seam where rules from outside the loop (hooks) see a turn's events and may steer them.

The loop calls a `TurnHooks` at fixed points: the session's first prompt, each prompt, before and after each
tool call, when the model stops, and before a compaction. It knows nothing of where the rules come from;
`NO_HOOKS` lets everything through.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from miniroom.engine.approvals import ApprovalRequest, decide, denial_text
from miniroom.engine.tool import Tool, ToolContext, ToolResult, run_tool_call
from miniroom.llm import AssistantMessage, TextContent, ToolCall

CompactTrigger = Literal["manual", "auto"]


@dataclass(frozen=True)
class PromptVerdict:
    """`blocked`: the prompt is not sent and the turn ends, saying why; `context` goes with the prompt."""

    blocked: str | None = None
    context: str = ""


@dataclass(frozen=True)
class ToolVerdict:
    """`denied`: the call does not run and the model reads why; `ask`: it runs only once a person approves
    (the rule that asks, `ask_reason` why); `arguments` replace the model's; `context` follows the result."""

    denied: str | None = None
    context: str = ""
    arguments: dict[str, Any] | None = None
    ask: str | None = None
    ask_reason: str = ""


ALLOW = ToolVerdict()
PASS = PromptVerdict()


class TurnHooks(Protocol):
    async def session_start(self, resumed: bool) -> str:
        """Before the first prompt this agent sends; returns context for that prompt."""

    async def user_prompt(self, text: str) -> PromptVerdict: ...

    async def pre_tool(self, call: ToolCall) -> ToolVerdict: ...

    async def post_tool(self, call: ToolCall, result: ToolResult) -> str:
        """After a call ran; returns context for the model, shown after the result."""

    async def stop(self, message: AssistantMessage, continuations: int) -> str | None:
        """When the model ends its turn (`continuations`: how often a Stop hook sent it on in this turn);
        an instruction makes it go on, with that as the next message."""

    async def pre_compact(self, trigger: CompactTrigger) -> bool:
        """Whether the compaction may run."""


class NoHooks:
    """Lets everything through and adds nothing."""

    async def session_start(self, resumed: bool) -> str:
        return ""

    async def user_prompt(self, text: str) -> PromptVerdict:
        return PASS

    async def pre_tool(self, call: ToolCall) -> ToolVerdict:
        return ALLOW

    async def post_tool(self, call: ToolCall, result: ToolResult) -> str:
        return ""

    async def stop(self, message: AssistantMessage, continuations: int) -> str | None:
        return None

    async def pre_compact(self, trigger: CompactTrigger) -> bool:
        return True


NO_HOOKS: TurnHooks = NoHooks()


def with_context(result: ToolResult, *contexts: str) -> ToolResult:
    """The result with each non-empty context as a text block after it."""
    added = [TextContent(context) for context in contexts if context]
    return replace(result, content=[*result.content, *added]) if added else result


async def run_hooked(
    hooks: TurnHooks,
    tool: Tool | None,
    call: ToolCall,
    context: Callable[[ToolCall], ToolContext],
    available: Collection[str],
) -> ToolResult:
    """Run `call` as the hooks let it: a denied call does not run, one they ask about runs once the person
    approves it as shown; what they add follows the result. The agent's own calls and those through
    `miniroom-agent` both run this way."""
    verdict = await hooks.pre_tool(call)
    if verdict.denied is not None:
        return ToolResult.text(verdict.denied, is_error=True)
    if verdict.arguments is not None:
        call = replace(call, arguments=verdict.arguments)
    ctx = context(call)
    if verdict.ask is not None:
        summary = tool.summary(call.arguments) if tool is not None else call.name
        request = ApprovalRequest(
            call.id, call.name, call.arguments, summary, verdict.ask, verdict.ask_reason
        )
        decision = await decide(ctx.person, request, ctx.settings.approval_timeout)
        if not decision.approved:
            return ToolResult.text(denial_text(request, decision), is_error=True, denied_by=decision.by)
    result = await run_tool_call(tool, call, ctx, available)
    after = await hooks.post_tool(call, result)
    return with_context(result, verdict.context, after)
