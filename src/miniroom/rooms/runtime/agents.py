"""Building the engine agent for one configured agent and one conversation (its own JSONL session)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.agent.profile import parse_variables
from miniroom.agent.tool_names import allowed_with_requirements
from miniroom.engine.agent import Agent
from miniroom.rooms.config import AgentConfig, RoomsConfig
from miniroom.rooms.conversation import Conversation

ROOM_CONVERSATION = "room"


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """A `models:` alias resolved for the engine: its name, its variables, and the environment to use."""

    name: str | None
    variables: Mapping[str, str]
    env: Mapping[str, str]


def model_choice(config: RoomsConfig, alias: str | None, env: Mapping[str, str]) -> ModelChoice:
    """The alias's model; its variables feed the profile and, laid over `env`, the model registry (MINI_*)."""
    entry = config.models.get(alias) if alias else None
    if entry is None:
        return ModelChoice(None, {}, env)
    variables = parse_variables(entry.variables)
    return ModelChoice(entry.model, variables, {**env, **variables})


def safe_name(name: str) -> str:
    """A Matrix id as one path component: ids may hold `/`, which would make a subfolder."""
    cleaned = name.replace("/", "_").replace("\\", "_").replace("\0", "_")
    return cleaned if cleaned not in ("", ".", "..") else f"_{cleaned}"


def room_prompt(name: str, agent: AgentConfig) -> str:
    """What the agent is told about its place in the room: who it is, its role and its instructions."""
    lines = [
        f"You are {agent.display_name or name}, an agent in a chat room. Each message you get starts with "
        "the sender's name. End your reply with @name to hand the conversation to another agent.",
    ]
    if agent.role:
        lines.append(f"Your role: {agent.role}")
    lines += agent.instructions
    return "\n".join(lines)


class AgentFactory:
    """Engine agents for room conversations, each with its session file under `<data_dir>/sessions`."""

    def __init__(self, config: RoomsConfig, data_dir: Path, env: Mapping[str, str]) -> None:
        self.config, self.data_dir, self.env = config, data_dir, env

    def session_path(self, agent: str, conversation: Conversation) -> Path:
        thread = conversation.thread_root or ROOM_CONVERSATION
        room = safe_name(conversation.room_id)
        return self.data_dir / "sessions" / safe_name(agent) / room / f"{safe_name(thread)}.jsonl"

    def workspace(self, agent: str) -> Path:
        return self.data_dir / "workspaces" / safe_name(agent)

    def build(self, agent: str, conversation: Conversation) -> Agent:
        """The agent with its model, profile, working folder and room instructions; raises on bad settings."""
        settings = self.config.agents[agent]
        choice = model_choice(self.config, settings.model or self.config.defaults.model, self.env)
        cwd = self.workspace(agent)
        cwd.mkdir(parents=True, exist_ok=True)
        session = SessionChoice(path=self.session_path(agent, conversation))
        engine_agent = build_agent(choice.name, cwd, choice.env, session, model_variables=choice.variables)
        prompt = f"{engine_agent.config.system_prompt}\n\n{room_prompt(agent, settings)}"
        tools = engine_agent.config.tools
        if settings.tools:  # the agent's own allowlist narrows what its profile allows
            tools = [
                tool for tool in tools if allowed_with_requirements(tool.name, settings.tools.__contains__)
            ]
        engine_agent.config = dataclasses.replace(engine_agent.config, system_prompt=prompt, tools=tools)
        return engine_agent
