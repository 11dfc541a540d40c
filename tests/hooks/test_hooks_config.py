"""hooks.yml read and validated: every mistake named with its line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.hooks.config import check_hooks_file, read_hooks
from tests.agent_runs import write_settings

VALID = """\
hooks:
  - event: PreToolUse
    matcher: "bash"
    command: "./scripts/check-command.sh"
    timeout: 10
  - event: Stop
    command: ./scripts/done.sh
deny:
  - "bash(rm -rf *)"
  - "write(.env)"
"""


def write(tmp_path: Path, text: str) -> Path:
    return write_settings(tmp_path, "hooks.yml", text)


def test_the_issues_example_reads_as_written(tmp_path: Path) -> None:
    settings, problems = read_hooks(write(tmp_path, VALID))
    assert problems == []
    check, done = settings.rules
    assert (check.event, check.command, check.timeout, check.where) == (
        "PreToolUse",
        "./scripts/check-command.sh",
        10.0,
        ".miniroom/hooks.yml:2",
    )
    assert done.timeout == 60.0  # the default
    assert [rule.text for rule in settings.deny] == ["bash(rm -rf *)", "write(.env)"]
    assert [rule.where for rule in settings.deny] == [".miniroom/hooks.yml:9", ".miniroom/hooks.yml:10"]
    assert settings.for_event("PreToolUse", "bash") == [check]
    assert settings.for_event("PreToolUse", "write") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hooks:\n  - event: Stopp\n    command: x\n",
         "2: hooks[0].event: must be one of 'SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', "
         "'Stop', 'SubagentStop' or 'PreCompact', got \"Stopp\""),
        ("hooks:\n  - event: Stop\n", "2: hooks[0].command: is required: add it"),
        ("hooks:\n  - event: Stop\n    matcher: x\n    command: y\n",
         "3: hooks[0].matcher: Stop hooks take no matcher (they concern no tool): delete the matcher"),
        ("hooks:\n  - event: PreToolUse\n    matcher: 'a(('\n    command: y\n",
         "3: hooks[0].matcher: is not a valid regular expression"),
        ("hooks:\n  - event: PreToolUse\n    comand: y\n",
         "3: hooks[0].comand: unknown key: did you mean command? the valid keys are event, matcher, command, "
         "timeout"),
        ("hooks:\n  - event: PreToolUse\n    command: y\n    timeout: 0\n",
         "4: hooks[0].timeout: must be a whole number above zero, got 0"),
        ("hooks:\n  - just a command\n", "2: hooks[0]: must be a mapping"),
        ("hooks: {event: Stop}\n", "1: hooks: must be a list (one `- item` per line)"),
        ("deny:\n  - 'bad rule(('\n", '2: deny[0]: "bad rule((" is not a deny rule'),
        ("deny:\n  - 'bash()'\n", '2: deny[0]: "bash()" has empty parentheses'),
        ("deny: bash\n", "1: deny: must be a list (one `- item` per line)"),
        ("PreToolUse: []\n", "1: PreToolUse: unknown key: the valid keys are hooks, deny, ask"),
        ("- a\n", "1: the file must be a mapping with `hooks:`, `deny:` and `ask:` keys, got a list"),
        ("ask:\n  - 'bash(('\n", '2: ask[0]: "bash((" is not an ask rule'),
        ("ask:\n  - 7\n", "2: ask[0]: must be text, got 7"),
        ('hooks:\n  - event: Stop\n    command: "echo a\\0b"\n',
         "3: hooks[0].command: holds a NUL character (\\0), which no command, argument or variable can "
         "carry: remove it"),
    ],
)  # fmt: skip
def test_each_mistake_is_named_with_its_line_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    problems = [str(problem) for problem in check_hooks_file(path)]
    assert any(problem.startswith(f"{path}:{message}") for problem in problems), problems
    settings, _ = read_hooks(path)
    assert (settings.rules, settings.deny, settings.ask) == ((), (), ())  # an error sets no rule at all


def test_every_problem_of_the_file_is_listed_at_once(tmp_path: Path) -> None:
    text = (
        "hooks:\n  - event: Nope\n    command: x\n  - event: Stop\n    matcher: y\n    command: z\n"
        "deny: ['(']\n"
    )
    lines = [problem.line for problem in check_hooks_file(write(tmp_path, text))]
    assert lines == [2, 5, 7]


def test_a_deny_rule_that_is_not_text_hides_no_other_problem(tmp_path: Path) -> None:
    text = "hooks:\n  - event: Nope\n    command: x\ndeny:\n  - 5\n  - 'bash('\n"
    problems = [str(problem) for problem in check_hooks_file(write(tmp_path, text))]
    assert [problem.split(": ", 1)[0].rsplit(":", 1)[1] for problem in problems] == ["2", "5", "6"], problems
    assert problems[1].endswith('deny[0]: must be text, got 5 — write "5" in quotes')


def test_ask_rules_read_as_deny_rules_do(tmp_path: Path) -> None:
    settings, problems = read_hooks(write(tmp_path, "ask:\n  - bash\n  - write(.env)\n"))
    assert problems == []
    assert [(rule.text, rule.where) for rule in settings.ask] == [
        ("bash", ".miniroom/hooks.yml:2"),
        ("write(.env)", ".miniroom/hooks.yml:3"),
    ]
    assert settings.deny == ()
