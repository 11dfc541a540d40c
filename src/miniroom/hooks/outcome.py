"""What a finished hook command decided, from its exit code, stdout and stderr (pure).

The conventions of Claude Code's hooks:
- exit 0 passes. Stdout starting with `{` is read as JSON (below); other stdout is context for the model on
  UserPromptSubmit and SessionStart, and only logged on the other events.
- exit 2 blocks where the event can be blocked (PreToolUse: the call; UserPromptSubmit: the prompt; Stop and
  SubagentStop: the model goes on; PreCompact: the compaction), with the JSON's reason or else stderr as the
  reason. After PostToolUse the reason is shown to the model; after SessionStart it is only logged.
- any other exit code is a non-blocking error, logged with stderr's first line; JSON on stdout still decides.
- a command that times out or cannot start decides nothing and is logged.
JSON fields read: `decision` (`block`; `approve` on PreToolUse) with `reason`; `hookSpecificOutput` with
`permissionDecision` (`allow`, `deny`, `ask`, `defer`), `permissionDecisionReason`, `updatedInput` and
`additionalContext`; `systemMessage` is logged as a warning. `ask` makes the call wait for a person's approval
(with the reason as why). `continue: false` is not supported and is logged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from miniroom.tools import Finished

BLOCKING_EXIT = 2
CAN_BLOCK = frozenset({"PreToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"})
STDOUT_IS_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})
GO_ON_EVENTS = frozenset({"Stop", "SubagentStop"})
MAX_TEXT = 10_000  # characters of one hook's context or reason


@dataclass(frozen=True)
class Outcome:
    """`block`: the reason the event is blocked; `context` for the model; `notices` for the log; `ask`: the
    call waits for approval (with the hook's reason, maybe empty)."""

    block: str | None = None
    context: str = ""
    updated_input: dict[str, Any] | None = None
    notices: tuple[str, ...] = ()
    ask: str | None = None


def _capped(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " [cut at 10,000 characters]"


def _json_object(stdout: str) -> dict[str, Any] | None:
    if not stdout.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _text(value: object) -> str:
    return _capped(value) if isinstance(value, str) else ""


def _json_notices(data: dict[str, Any], rule: str) -> list[str]:
    notices = []
    if _text(data.get("systemMessage")):
        notices.append(f"hook {rule} says: {_text(data.get('systemMessage'))}")
    if data.get("continue") is False:
        notices.append(
            f"hook {rule} answered continue: false, which miniroom does not support; it was ignored "
            "(block with exit code 2 or a decision instead)"
        )
    return notices


def _permission(data: dict[str, Any], rule: str) -> tuple[str | None, str | None]:
    """The block reason a PreToolUse decision gives, and its reason to ask (None, None: the call may run)."""
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    decision = specific.get("permissionDecision")
    reason = _text(specific.get("permissionDecisionReason")) or _text(data.get("reason"))
    if decision is None:
        decision = {"approve": "allow", "block": "deny"}.get(str(data.get("decision")))
    if decision == "deny":
        return reason or f"The hook {rule} denied this call.", None
    if decision == "ask":
        return None, reason
    return None, None


def _from_json(event: str, data: dict[str, Any], rule: str, notices: list[str]) -> Outcome:
    notices = notices + _json_notices(data, rule)
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    context = _text(specific.get("additionalContext"))
    if event == "PreToolUse":
        updated = specific.get("updatedInput")
        block, ask = _permission(data, rule)
        updated_input = updated if isinstance(updated, dict) else None
        return Outcome(block, context, updated_input, tuple(notices), ask)
    reason = _text(data.get("reason"))
    blocked = data.get("decision") == "block"
    if event == "PostToolUse":
        shown = "\n\n".join(part for part in (reason if blocked else "", context) if part)
        return Outcome(None, shown, None, tuple(notices))
    if event in GO_ON_EVENTS and not blocked and context:
        return Outcome(context, "", None, tuple(notices))  # context alone sends the model on too
    if blocked and event in CAN_BLOCK:
        return Outcome(reason or f"The hook {rule} blocked this.", context, None, tuple(notices))
    return Outcome(None, context, None, tuple(notices))


def _blocking_exit(event: str, finished: Finished, rule: str) -> Outcome:
    data = _json_object(finished.text(1)) or {}
    specific = data.get("hookSpecificOutput")
    json_reason = _text(data.get("reason")) or _text(
        specific.get("permissionDecisionReason") if isinstance(specific, dict) else None
    )
    reason = (
        json_reason or _capped(finished.text(2)) or f"The hook {rule} exited with code 2 and gave no reason."
    )
    if event in CAN_BLOCK:
        return Outcome(block=reason)
    if event == "PostToolUse":
        return Outcome(context=reason)
    return Outcome(notices=(f"hook {rule} ({event}) exited with code 2: {reason}",))


def interpret(event: str, finished: Finished, rule: str) -> Outcome:
    """What one hook's run decided for `event`; `rule` names the rule in messages."""
    if finished.exit_code is None:
        return Outcome(notices=(f"hook {rule} {finished.failure}; it decided nothing",))
    if finished.exit_code == BLOCKING_EXIT:
        return _blocking_exit(event, finished, rule)
    notices = []
    if finished.exit_code != 0:
        stderr = finished.text(2).strip()
        first = stderr.splitlines()[0] if stderr else "no error output"
        notices.append(f"hook {rule} failed with exit code {finished.exit_code}: {first}")
    data = _json_object(finished.text(1))
    if data is not None:
        return _from_json(event, data, rule, notices)
    context = _capped(finished.text(1)) if finished.exit_code == 0 and event in STDOUT_IS_CONTEXT else ""
    return Outcome(context=context, notices=tuple(notices))


def combine(outcomes: Sequence[Outcome]) -> Outcome:
    """The hooks of one event together, in rule order: the first block and new input win; contexts add up."""
    return Outcome(
        block=next((outcome.block for outcome in outcomes if outcome.block is not None), None),
        context="\n\n".join(outcome.context for outcome in outcomes if outcome.context),
        updated_input=next((o.updated_input for o in outcomes if o.updated_input is not None), None),
        notices=tuple(notice for outcome in outcomes for notice in outcome.notices),
        ask=next((outcome.ask for outcome in outcomes if outcome.ask is not None), None),
    )
