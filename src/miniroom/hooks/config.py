"""`.miniroom/hooks.yml`: hook rules (`hooks:`), deny rules (`deny:`) and ask rules (`ask:`), read and
validated.

hooks:
  - event: PreToolUse        # one of EVENTS
    matcher: "bash|write"     # optional: tool names or a pattern (see `hooks.matcher`)
    command: ./scripts/check.sh
    timeout: 10               # seconds, default 60
deny:
  - "bash(rm -rf *)"          # see `hooks.deny`
ask:
  - bash                      # the same syntax: a matching call waits for a person's approval
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import Field, ValidationError

from miniroom.config.paths import HOOKS_FILE
from miniroom.config.problems import Problem, describe_value
from miniroom.config.settings_file import SettingsFileError
from miniroom.config.settings_model import (
    OptionalPositiveWhole,
    ProcessText,
    SettingsModel,
    validation_problems,
)
from miniroom.config.yaml_source import YamlSource, load_yaml
from miniroom.hooks.deny import DenyRule, parse_deny_rule
from miniroom.hooks.matcher import Matcher, compile_matcher

HookEvent = Literal[
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop", "PreCompact"
]
EVENTS: tuple[str, ...] = get_args(HookEvent)
WITHOUT_MATCHER = ("UserPromptSubmit", "Stop")  # nothing to match: they concern no tool, source or trigger
DEFAULT_TIMEOUT_SECONDS = 60


class RuleFields(SettingsModel):
    event: HookEvent
    matcher: str | None = None
    command: Annotated[ProcessText, Field(min_length=1)]
    timeout: OptionalPositiveWhole = None


class HooksFile(SettingsModel):
    # each item checked on its own, so one bad rule hides no other problem
    hooks: list[Any] | None = None
    deny: list[Any] | None = None
    ask: list[Any] | None = None


@dataclass(frozen=True)
class HookRule:
    """One rule, ready to run; `where` names it in messages (`.miniroom/hooks.yml:7`)."""

    event: str
    matcher: Matcher
    command: str
    timeout: float
    where: str


@dataclass(frozen=True)
class HookSettings:
    rules: tuple[HookRule, ...] = ()
    deny: tuple[DenyRule, ...] = ()
    ask: tuple[DenyRule, ...] = ()  # calls that run only once a person approves them

    def for_event(self, event: str, value: str | None = None) -> list[HookRule]:
        """The rules of `event` whose matcher takes `value` (every rule of the event when None)."""
        return [
            rule
            for rule in self.rules
            if rule.event == event and (value is None or rule.matcher.matches(value))
        ]


NO_HOOK_SETTINGS = HookSettings()


def _where(source: YamlSource, loc: tuple[str | int, ...]) -> str:
    line = source.line_of(loc)
    return f"{source.path.parent.name}/{source.path.name}" + (f":{line}" if line else "")


def _rule(source: YamlSource, index: int, item: Any, problems: list[Problem]) -> HookRule | None:
    loc = ("hooks", index)
    try:
        fields = RuleFields.model_validate(item)
    except ValidationError as error:
        problems.extend(validation_problems(source, error, RuleFields, loc))
        return None
    if fields.matcher is not None and fields.event in WITHOUT_MATCHER:
        message = f"{fields.event} hooks take no matcher (they concern no tool): delete the matcher"
        problems.append(source.problem((*loc, "matcher"), message))
        return None
    try:
        matcher = compile_matcher(fields.matcher)
    except ValueError as error:
        problems.append(source.problem((*loc, "matcher"), str(error)))
        return None
    timeout = float(fields.timeout or DEFAULT_TIMEOUT_SECONDS)
    return HookRule(fields.event, matcher, fields.command, timeout, _where(source, loc))


def _call_rule(
    source: YamlSource, key: str, index: int, text: Any, problems: list[Problem]
) -> DenyRule | None:
    """One rule of `deny:` or `ask:` (the same syntax)."""
    if not isinstance(text, str):
        hint = source.quote_hint((key, index), text)
        problems.append(source.problem((key, index), f"must be text, got {describe_value(text)}{hint}"))
        return None
    try:
        return parse_deny_rule(text, _where(source, (key, index)), key)
    except ValueError as error:
        problems.append(source.problem((key, index), str(error)))
        return None


def _parsed(source: YamlSource, problems: list[Problem]) -> HooksFile | None:
    data: Any = {} if source.data is None else source.data
    if not isinstance(data, dict):
        message = (
            f"the file must be a mapping with `hooks:`, `deny:` and `ask:` keys, got {describe_value(data)}"
        )
        problems.append(source.problem((), message))
        return None
    try:
        return HooksFile.model_validate(data)
    except ValidationError as error:
        problems.extend(validation_problems(source, error, HooksFile))
        return None


def read_hooks(path: Path) -> tuple[HookSettings, list[Problem]]:
    """The rules the file sets, and every problem in it; with any error, no rules."""
    try:
        source = load_yaml(path)
    except SettingsFileError as error:
        return NO_HOOK_SETTINGS, [error.problem]
    problems = list(source.problems)
    parsed = _parsed(source, problems)
    if parsed is None:
        return NO_HOOK_SETTINGS, problems
    rules = [_rule(source, index, item, problems) for index, item in enumerate(parsed.hooks or [])]
    deny = [_call_rule(source, "deny", index, text, problems) for index, text in enumerate(parsed.deny or [])]
    ask = [_call_rule(source, "ask", index, text, problems) for index, text in enumerate(parsed.ask or [])]
    if any(problem.severity == "error" for problem in problems):
        return NO_HOOK_SETTINGS, problems
    kept = (tuple(rule for rule in rules if rule), tuple(r for r in deny if r), tuple(r for r in ask if r))
    return HookSettings(*kept), problems


def check_hooks_file(path: Path) -> list[Problem]:
    """Everything wrong in a hooks.yml, with line numbers (for `config check`)."""
    return read_hooks(path)[1]


def load_hooks(project_dir: Path) -> tuple[HookSettings, list[Problem]]:
    """The project's hook settings (none without a file) and the file's problems."""
    path = project_dir / HOOKS_FILE
    return read_hooks(path) if path.exists() else (NO_HOOK_SETTINGS, [])
