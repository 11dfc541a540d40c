"""What a project adds to an agent from outside miniroom: MCP servers (`mcp.yml`) and hooks (`hooks.yml`).

Both files are read once, when the agent is built, so a session works with what they said then; an error in
either refuses the agent (as an error in the profile does) rather than run without the user's rules.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.agent.variables import ProfileError
from miniroom.config.paths import HOOKS_FILE, MCP_FILE
from miniroom.engine import NO_HOOKS, TurnHooks

if TYPE_CHECKING:
    from miniroom.config.problems import Problem
    from miniroom.hooks.config import HookSettings
    from miniroom.hooks.deny import DenyRule
    from miniroom.hooks.payloads import SessionFacts
    from miniroom.mcp.config import ServerEntry
    from miniroom.mcp.manager import McpTools

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExternalSettings:
    """The project's servers (as written), hook rules, and a fingerprint of each file, by name."""

    servers: tuple[ServerEntry, ...]
    hooks: HookSettings | None  # None: the project has no hooks.yml
    fingerprints: Mapping[str, str]


def _fingerprint(path: Path) -> str | None:
    """What the file says, as a short digest (comments and layout aside); None without a readable file."""
    if not path.exists():
        return None
    from miniroom.config.settings_file import SettingsFileError
    from miniroom.config.yaml_source import load_yaml

    try:
        data = load_yaml(path).data
    except SettingsFileError:
        return None
    text = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _refuse(problems: list[Problem]) -> None:
    errors = [problem for problem in problems if problem.severity == "error"]
    for problem in problems:
        if problem.severity == "warning":
            log.warning("%s", problem)
    if errors:
        listed = "\n".join(str(problem) for problem in errors)
        raise ProfileError(f"{listed}\nFix the file (`miniroom config check` lists every problem).")


def load_external(project_dir: Path) -> ExternalSettings:
    """The project's mcp.yml and hooks.yml; ProfileError naming every error in them."""
    # Their readers (pydantic models, YAML) are imported only for a project that has the files.
    servers: tuple[ServerEntry, ...] = ()
    hooks: HookSettings | None = None
    problems: list[Problem] = []
    if (project_dir / MCP_FILE).exists():
        from miniroom.mcp.config import load_servers

        servers, server_problems = load_servers(project_dir)
        problems += server_problems
    if (project_dir / HOOKS_FILE).exists():
        from miniroom.hooks.config import load_hooks

        hooks, hook_problems = load_hooks(project_dir)
        problems += hook_problems
    _refuse(problems)
    fingerprints = {
        relative.name: digest
        for relative in (MCP_FILE, HOOKS_FILE)
        if (digest := _fingerprint(project_dir / relative)) is not None
    }
    return ExternalSettings(servers, hooks, fingerprints)


def mcp_servers(
    external: ExternalSettings,
    cwd: Path,
    variables: Mapping[str, str],
    env: Mapping[str, str],
    allow: Callable[[str], bool],
    *,
    warn_failures: bool = True,
) -> McpTools:
    """The servers, their entries expanded, for an agent working in `cwd`; nothing connects yet.
    `warn_failures`: log each server that fails to connect (for a caller that does not show it itself)."""
    from miniroom.mcp.manager import McpTools  # the MCP client only for a project that has servers

    entries = []
    if external.servers:
        from miniroom.mcp.config import expanded
    for entry in external.servers:
        filled, warnings = expanded(entry, variables, env) if entry.enabled else (entry, [])
        for warning in warnings:
            log.warning("%s", warning)
        entries.append(filled)
    return McpTools(entries, cwd, allow, warn_failures=warn_failures)


def ask_rules(external: ExternalSettings) -> tuple[DenyRule, ...]:
    """hooks.yml's ask rules: the calls that wait for a person's approval."""
    return external.hooks.ask if external.hooks is not None else ()


def turn_hooks(
    external: ExternalSettings, facts: SessionFacts, project_dir: Path, *, commands: bool = True
) -> TurnHooks:
    """The hooks of an agent; without `commands` (a subagent) only the deny and ask rules and SubagentStop
    apply."""
    settings = external.hooks
    if settings is None or not (settings.rules or settings.deny or settings.ask):
        return NO_HOOKS
    from miniroom.hooks.project_hooks import ProjectHooks, SubagentHooks

    return (ProjectHooks if commands else SubagentHooks)(settings, facts, project_dir)
