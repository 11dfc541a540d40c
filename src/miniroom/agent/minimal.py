"""Minimal mode in the agent: the short prompt that goes with the one Bash tool, the line that tells a
standard agent about `miniroom-agent`, the documents both read through `miniroom-agent context`, and what
an agent must have for minimal mode."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from miniroom.agent.context_files import ContextFile
from miniroom.agent.memory import MEMORY_NAMES
from miniroom.agent.profile import ProfileError, ProfileSettings
from miniroom.agent.tool_names import allowed_with_requirements
from miniroom.hooks.deny import DenyRule, rule_naming

DEFAULT_IDENTITY = "You are mini, a coding agent working in the user's project."
INSTRUCTIONS_DOCUMENT = "instructions"
GLOBAL_CONTEXT_PREFIX = "global/"
CLI_HINT = (
    "Your bash commands can call your other tools with `miniroom-agent` (see `miniroom-agent --help`), to "
    "combine many calls in one script."
)
SHELL_FIX = (
    "the profile leaves bash out: allow it in .miniroom/miniagent.yml (enabledTools, disabledTools) or "
    "MINI_PROFILE_ENABLED_TOOLS / MINI_PROFILE_DISABLED_TOOLS"
)


class MinimalModeUnavailable(ProfileError):
    """The agent cannot run in minimal mode; the message lists every missing requirement and its fix."""


@dataclass(frozen=True)
class CliMode:
    """The agent's shell reaches its other tools through `miniroom-agent`; in minimal mode that, one Bash
    tool and a short prompt are all the model is sent."""

    minimal: bool = False
    identity: str = DEFAULT_IDENTITY  # the minimal prompt's first line
    instructions: tuple[str, ...] = ()  # minimal_instructions: appended to every minimal prompt
    tools_setting: str = "the tool list"  # where the agent's own tool list is set, for error messages
    memory: bool = False  # file memory: the prompt names MEMORY.md and memory/
    can_ask: bool = True  # someone can approve its calls (a subagent has no one)


def shell_problems(
    settings: ProfileSettings, allowlist: Collection[str] | None, tools_setting: str
) -> list[str]:
    """Why the agent has no bash tool, each reason with its fix; empty when it has one."""
    problems = []
    if allowlist is not None and not allowed_with_requirements("bash", frozenset(allowlist).__contains__):
        problems.append(f"{tools_setting} does not include bash: add bash to it")
    if not settings.tool_enabled("bash"):
        problems.append(SHELL_FIX)
    return problems


def approval_problems(ask_rules: Sequence[DenyRule]) -> list[str]:
    """Why a subagent, whose calls no one can approve, cannot run in minimal mode: its bash waits for that."""
    rule = rule_naming(ask_rules, "bash")
    if rule is None:
        return []
    return [
        f"bash calls that need no approval: the ask rule {rule.name()} makes them wait for one, which no one "
        "can give a subagent; drop the rule, or start the subagent without minimal"
    ]


def require_shell(problems: Sequence[str]) -> None:
    if problems:
        raise MinimalModeUnavailable(unavailable_message(problems))


def unavailable_message(problems: Sequence[str]) -> str:
    listed = "\n".join(f"- {problem}" for problem in problems)
    return f"Minimal mode needs what this agent or deployment lacks:\n{listed}"


def context_name(file: ContextFile, cwd: Path, agent_dir: Path) -> str:
    """The name `miniroom-agent context` knows a context file by: its path from the working folder, or
    `global/CLAUDE.md` for the one in the agent folder. A name, never a path the CLI could open."""
    if file.path.parent == agent_dir:
        return GLOBAL_CONTEXT_PREFIX + file.path.name
    return os.path.relpath(file.path, cwd)


def context_documents(
    instructions: str, files: Sequence[ContextFile], cwd: Path, agent_dir: Path
) -> dict[str, str]:
    """What `miniroom-agent context` serves: the instructions (everything a standard prompt says but the
    context files), then each context file by name."""
    documents = {INSTRUCTIONS_DOCUMENT: instructions}
    for file in files:
        documents[context_name(file, cwd, agent_dir)] = file.text
    return documents


def minimal_prompt(
    command_line: CliMode,
    cwd: Path,
    context_names: Sequence[str],
    toolkits: Sequence[str],
    bash_timeout: int,
    today: date | None = None,
) -> str:
    """The identity line, where the agent works, the toolkits and context files `miniroom-agent` reaches,
    its memory files, how its Bash behaves, then `minimal_instructions`."""
    reachable = ", ".join(toolkits) or "none"
    lines = [
        command_line.identity,
        f"Working folder: {cwd}. Today's date: {(today or date.today()).isoformat()}.",
        f"Your one tool is bash. In it, `miniroom-agent` reaches your other tools (toolkits: {reachable}); "
        "see `miniroom-agent --help`, and read your instructions with "
        f"`miniroom-agent context read {INSTRUCTIONS_DOCUMENT}`.",
    ]
    if context_names:
        lines.append(f"Project context files, read the same way: {', '.join(context_names)}.")
    if command_line.memory:
        lines.append(MEMORY_NAMES)
    lines.append(
        f"Each bash command starts a fresh shell and stops after {bash_timeout} s: start longer work "
        "detached (nohup cmd > out.log 2>&1 &) and read its log later."
    )
    return "\n".join([*lines, *command_line.instructions])
