"""Deny rules (`deny:` in hooks.yml): `tool(argument glob)` refuses matching calls before they run (pure).
Ask rules (`ask:`) are written and matched the same way; a matching call waits for a person's approval.

A rule is a tool name, or a glob of names (`mcp__github__*`), with an optional glob in parentheses matched
against the call's main argument; without one it refuses every call of the tool. The main argument is:
- `bash`: the command, and each part of it between `&&`, `||`, `;`, `|`, `&` and line breaks, so
  `bash(rm -rf *)` also refuses `make && rm -rf build`; a `bash(...)` rule covers `parallel_bash`'s commands;
- `read`, `write`, `edit`: the path as written, relative to the working folder, and absolute; a glob without
  `/` also matches the file's name in any folder (`write(.env)` refuses `config/.env`);
- any other tool: its arguments as compact JSON with sorted keys, e.g. `{"path":"src","pattern":"x"}`.
Globs are shell-style (`*`, `?`, `[abc]`) and case-sensitive; `*` crosses `/`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any

_RULE = re.compile(r"^([^\s()]+)(?:\((.*)\))?$", re.DOTALL)
_COMMAND_PARTS = re.compile(r"&&|\|\||[;|\n]|(?<![<>&])&(?![>&])")
PATH_TOOLS = ("read", "write", "edit")
SHELL_TOOL, PARALLEL_SHELL_TOOL = "bash", "parallel_bash"


@dataclass(frozen=True)
class DenyRule:
    """One rule as written (`text`), where it is written (`where`, e.g. `.miniroom/hooks.yml:9`), parsed."""

    text: str
    tool: str
    argument: str | None
    where: str = ""

    def name(self) -> str:
        """The rule as people find it: `"bash" (.miniroom/hooks.yml:9)`."""
        return f'"{self.text}"' + (f" ({self.where})" if self.where else "")

    def refusal(self) -> str:
        where = f" ({self.where})" if self.where else ""
        return (
            f'Denied by the rule "{self.text}"{where}: this call was not run. Do not try to get around the '
            "rule; do the task another way, or tell the user what you could not do."
        )


def parse_deny_rule(text: str, where: str = "", kind: str = "deny") -> DenyRule:
    """The rule `text` writes (`kind`: deny or ask); ValueError saying how to write it."""
    match = _RULE.match(text.strip())
    if match is None or not match.group(1):
        article = "an" if kind == "ask" else "a"
        raise ValueError(
            f'"{text}" is not {article} {kind} rule: write a tool name with an optional argument glob in '
            'parentheses, e.g. "bash(rm -rf *)", "write(.env)" or "mcp__github__*"'
        )
    argument = match.group(2)
    if argument is not None and not argument.strip():
        raise ValueError(f'"{text}" has empty parentheses: write a glob in them, or leave them out')
    return DenyRule(text.strip(), match.group(1), argument, where)


def _command_candidates(command: str) -> list[str]:
    parts = [part.strip() for part in _COMMAND_PARTS.split(command)]
    return [command.strip(), *(part for part in parts if part)]


def _path_candidates(path: str, cwd: Path) -> list[str]:
    absolute = Path(os.path.normpath(cwd / path))
    candidates = [path, absolute.as_posix()]
    if absolute.is_relative_to(cwd):
        candidates.append(absolute.relative_to(cwd).as_posix())
    return candidates


def _arguments_text(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def main_arguments(tool: str, arguments: dict[str, Any], cwd: Path) -> list[str]:
    """What a rule's argument glob is matched against, for this call (see the module's list)."""
    if tool == SHELL_TOOL and isinstance(arguments.get("command"), str):
        return _command_candidates(arguments["command"])
    if tool == PARALLEL_SHELL_TOOL and isinstance(arguments.get("commands"), list):
        commands = [command for command in arguments["commands"] if isinstance(command, str)]
        return [part for command in commands for part in _command_candidates(command)]
    if tool in PATH_TOOLS and isinstance(arguments.get("path"), str):
        return _path_candidates(arguments["path"], cwd)
    return [_arguments_text(arguments)]


def _names_tool(rule: DenyRule, tool: str) -> bool:
    if fnmatchcase(tool, rule.tool):
        return True
    return tool == PARALLEL_SHELL_TOOL and fnmatchcase(SHELL_TOOL, rule.tool)


def rule_naming(rules: Sequence[DenyRule], tool: str) -> DenyRule | None:
    """The first rule that names `tool` for some call of it, whatever its argument glob; or None."""
    return next((rule for rule in rules if _names_tool(rule, tool)), None)


def _glob_matches(glob: str, candidate: str, is_path: bool) -> bool:
    if fnmatchcase(candidate, glob):
        return True
    return is_path and "/" not in glob and fnmatchcase(PurePosixPath(candidate).name, glob)


def denying_rule(
    rules: Sequence[DenyRule], tool: str, arguments: dict[str, Any], cwd: Path
) -> DenyRule | None:
    """The first rule that refuses this call, or None."""
    candidates: list[str] | None = None
    for rule in rules:
        if not _names_tool(rule, tool):
            continue
        if rule.argument is None:
            return rule
        if candidates is None:
            candidates = main_arguments(tool, arguments, cwd)
        is_path = tool in PATH_TOOLS
        if any(_glob_matches(rule.argument, candidate, is_path) for candidate in candidates):
            return rule
    return None
