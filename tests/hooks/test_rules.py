"""The pure rules of hooks.yml: matchers, deny rules, and what a finished hook decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.hooks.deny import denying_rule, parse_deny_rule
from miniroom.hooks.matcher import compile_matcher
from miniroom.hooks.outcome import Outcome, combine, interpret
from miniroom.tools.process import Finished

CWD = Path("/work/project")


@pytest.mark.parametrize(
    ("matcher", "matched", "unmatched"),
    [
        (None, ["bash", "mcp__x__y"], []),
        ("*", ["bash", "write"], []),
        ("bash", ["bash"], ["parallel_bash", "Bash"]),
        ("bash|write", ["bash", "write"], ["edit"]),
        ("read, grep", ["read", "grep"], ["ls"]),
        ("mcp__files__.*", ["mcp__files__read"], ["mcp__docs__read"]),
        ("edit.*", ["edit", "notebook_edit_x"], ["write"]),
        ("^edit$", ["edit"], ["edit2"]),
    ],
)
def test_matchers_are_names_or_patterns(
    matcher: str | None, matched: list[str], unmatched: list[str]
) -> None:
    compiled = compile_matcher(matcher)
    assert all(compiled.matches(name) for name in matched)
    assert not any(compiled.matches(name) for name in unmatched)


def test_a_broken_pattern_says_how_to_write_one() -> None:
    with pytest.raises(ValueError, match=r"is not a valid regular expression \(missing \), unterminated"):
        compile_matcher("bash(")


@pytest.mark.parametrize(
    ("rule", "tool", "arguments", "denied"),
    [
        ("bash(rm -rf *)", "bash", {"command": "rm -rf /"}, True),
        ("bash(rm -rf *)", "bash", {"command": "make && rm -rf build"}, True),
        ("bash(rm -rf *)", "bash", {"command": "sleep 1 & rm -rf x"}, True),
        ("bash(rm -rf *)", "bash", {"command": "echo rm -rf x"}, False),
        ("bash(rm -rf *)", "bash", {"command": "ls 2>&1"}, False),
        ("bash(rm -rf *)", "parallel_bash", {"commands": ["ls", "rm -rf x"]}, True),
        ("bash(rm -rf *)", "write", {"path": "rm -rf x", "content": ""}, False),
        ("bash", "bash", {"command": "ls"}, True),
        ("write(.env)", "write", {"path": ".env", "content": ""}, True),
        ("write(.env)", "write", {"path": "./config/.env", "content": ""}, True),
        ("write(.env)", "write", {"path": "/work/project/.env", "content": ""}, True),
        ("write(.env)", "write", {"path": ".env.example", "content": ""}, False),
        ("write(.env)", "edit", {"path": ".env"}, False),
        ("edit(src/*)", "edit", {"path": "src/a/b.py"}, True),
        ("edit(src/*)", "edit", {"path": "tests/src/a.py"}, False),
        ("read(/etc/*)", "read", {"path": "../../../etc/passwd"}, True),
        ("mcp__github__*", "mcp__github__create_issue", {}, True),
        ('mcp__db__query(*"delete *)', "mcp__db__query", {"sql": "drop table x"}, False),
        ('mcp__db__query(*"drop *)', "mcp__db__query", {"sql": "drop table x"}, True),
        ("grep(*secret*)", "grep", {"pattern": "secret", "path": "."}, True),
    ],
)
def test_deny_rules_match_the_main_argument(
    rule: str, tool: str, arguments: dict[str, object], denied: bool
) -> None:
    found = denying_rule([parse_deny_rule(rule)], tool, arguments, CWD)
    assert (found is not None) is denied


def test_a_refusal_names_the_rule_and_where_it_is_written() -> None:
    rule = parse_deny_rule("write(.env)", ".miniroom/hooks.yml:9")
    assert rule.refusal().startswith(
        'Denied by the rule "write(.env)" (.miniroom/hooks.yml:9): this call was not run.'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bad rule((", '"bad rule((" is not a deny rule: write a tool name with an optional argument glob'),
        ("bash()", '"bash()" has empty parentheses: write a glob in them, or leave them out'),
        ("", '"" is not a deny rule'),
    ],
)
def test_bad_deny_rules_say_how_to_write_one(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_deny_rule(text)


def finished(exit_code: int | None, stdout: str = "", stderr: str = "", failure: str = "") -> Finished:
    return Finished(exit_code, stdout.encode(), stderr.encode(), failure=failure)


RULE = "hooks.yml:3 (./check.sh)"


@pytest.mark.parametrize(
    ("event", "finished", "expected"),
    [
        ("PreToolUse", finished(0, "", ""), Outcome()),
        ("PreToolUse", finished(2, "", "no rm here\n"), Outcome(block="no rm here")),
        ("PreToolUse", finished(2, '{"hookSpecificOutput": {"permissionDecision": "allow"}}', "x"),
         Outcome(block="x")),
        ("PreToolUse", finished(2, "", ""),
         Outcome(block=f"The hook {RULE} exited with code 2 and gave no reason.")),
        ("PreToolUse", finished(0, '{"hookSpecificOutput": {"permissionDecision": "deny", '
                                   '"permissionDecisionReason": "not on main"}}'),
         Outcome(block="not on main")),
        ("PreToolUse", finished(0, '{"decision": "block", "reason": "legacy no"}'),
         Outcome(block="legacy no")),
        ("PreToolUse", finished(0, '{"hookSpecificOutput": {"permissionDecision": "ask"}}'),
         Outcome(ask="")),
        ("PreToolUse", finished(0, '{"hookSpecificOutput": {"permissionDecision": "ask", '
                                   '"permissionDecisionReason": "touches prod"}}'),
         Outcome(ask="touches prod")),
        ("PreToolUse", finished(0, '{"hookSpecificOutput": {"updatedInput": {"command": "ls"}, '
                                   '"additionalContext": "checked"}}'),
         Outcome(context="checked", updated_input={"command": "ls"})),
        ("PreToolUse", finished(0, "plain text is only logged"), Outcome()),
        ("PreToolUse", finished(1, "", "oops\nmore"),
         Outcome(notices=(f"hook {RULE} failed with exit code 1: oops",))),
        ("PreToolUse", finished(1, '{"hookSpecificOutput": {"permissionDecision": "deny"}}', ""),
         Outcome(block=f"The hook {RULE} denied this call.",
                 notices=(f"hook {RULE} failed with exit code 1: no error output",))),
        ("PreToolUse", finished(None, failure="timed out after 10 seconds"),
         Outcome(notices=(f"hook {RULE} timed out after 10 seconds; it decided nothing",))),
        ("PostToolUse", finished(2, "", "tests fail now"), Outcome(context="tests fail now")),
        ("PostToolUse", finished(0, '{"decision": "block", "reason": "lint: 3 errors", '
                                    '"hookSpecificOutput": {"additionalContext": "see ruff"}}'),
         Outcome(context="lint: 3 errors\n\nsee ruff")),
        ("UserPromptSubmit", finished(0, "the time is 12:00\n"), Outcome(context="the time is 12:00")),
        ("UserPromptSubmit", finished(0, '{"decision": "block", "reason": "no secrets"}'),
         Outcome(block="no secrets")),
        ("SessionStart", finished(0, "on branch main"), Outcome(context="on branch main")),
        ("SessionStart", finished(2, "", "bad"),
         Outcome(notices=(f"hook {RULE} (SessionStart) exited with code 2: bad",))),
        ("Stop", finished(2, "", "run the tests"), Outcome(block="run the tests")),
        ("Stop", finished(0, '{"hookSpecificOutput": {"additionalContext": "and lint"}}'),
         Outcome(block="and lint")),
        ("PreCompact", finished(0, '{"decision": "block"}'), Outcome(block=f"The hook {RULE} blocked this.")),
        ("PreCompact", finished(0, '{"systemMessage": "heads up", "continue": false}'),
         Outcome(notices=(f"hook {RULE} says: heads up",
                          f"hook {RULE} answered continue: false, which miniroom does not support; it was "
                          "ignored (block with exit code 2 or a decision instead)"))),
    ],
)  # fmt: skip
def test_what_a_finished_hook_decided(event: str, finished: Finished, expected: Outcome) -> None:
    assert interpret(event, finished, RULE) == expected


def test_outcomes_combine_in_rule_order() -> None:
    combined = combine(
        [
            Outcome(context="one", notices=("n1",)),
            Outcome(block="first block", updated_input={"a": 1}),
            Outcome(block="second block", context="two", updated_input={"a": 2}, notices=("n2",)),
        ]
    )
    assert combined == Outcome("first block", "one\n\ntwo", {"a": 1}, ("n1", "n2"))
