"""What an agent runs with: its model, prompt, tools and the limits of a turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from miniroom.engine.approvals import NO_ONE, Person
from miniroom.engine.hooks import NO_HOOKS, TurnHooks
from miniroom.engine.retry_policy import RetryPolicy
from miniroom.engine.tool import DEFAULT_TOOL_CALL_TIMEOUT, CliOffer, Tool, ToolSettings, ToolSource
from miniroom.llm import Model, RequestOptions


@dataclass
class AgentConfig:
    model: Model
    system_prompt: str
    tools: Sequence[Tool]
    cwd: Path
    request_options: RequestOptions = field(default_factory=RequestOptions)
    tool_timeout: float = DEFAULT_TOOL_CALL_TIMEOUT
    tool_settings: ToolSettings = field(default_factory=ToolSettings)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_model_requests: int = 200  # per turn: a model that keeps calling tools stops there
    tool_sources: Sequence[ToolSource] = ()  # tools beyond `tools` that change during the session (MCP)
    hooks: TurnHooks = NO_HOOKS
    max_tool_calls_per_turn: int | None = None  # direct calls; calls through the CLI are counted apart
    command_line: CliOffer = field(default_factory=CliOffer)
    person: Person = NO_ONE  # who approves calls and answers questions: the UI's
