"""What the caller of `build_agent` sets beyond the model, folder, environment and session."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from miniroom.agent.minimal import CliMode
from miniroom.agent.profile import ProfileSettings
from miniroom.engine import Sleep


@dataclass(frozen=True)
class AgentOptions:
    """What the caller sets beyond the model, folder, environment and session (each default: none)."""

    model_variables: Mapping[str, str] = field(default_factory=dict)
    project_dir: Path | None = None  # holds the `.miniroom/` settings (None: the working folder)
    extra_prompt: str = ""  # ends the system prompt
    tool_allowlist: Collection[str] | None = None  # narrows the profile's built-in tools (None: no narrowing)
    # False (a subagent): no MCP servers and no hook commands; the deny rules of hooks.yml still apply
    external_tools: bool = True
    command_line: CliMode | None = None  # shell commands reach the agent's other tools
    max_tool_calls_per_turn: int | None = None
    resume_calls: Collection[str] = ()  # calls left without a result, for `Agent.resume_calls`
    profile_defaults: ProfileSettings | None = None  # what a setting no file sets is (serve: a sandbox)
    retry_sleep: Sleep = asyncio.sleep  # the pause before a retry (tests: one that returns at once)

    def settings_dir(self, cwd: Path) -> Path:
        return cwd if self.project_dir is None else self.project_dir


NO_OPTIONS = AgentOptions()
