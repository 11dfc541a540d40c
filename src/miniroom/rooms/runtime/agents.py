"""Building the engine agent for one configured agent and one conversation (its own JSONL session)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from miniroom.agent import (
    SERVE_DEFAULTS,
    AgentOptions,
    CliMode,
    ProfileError,
    SandboxMode,
    SessionChoice,
    build_agent,
    memory_prompt,
    parse_variables,
    resolve_profile,
    shell_problems,
)
from miniroom.config.config_yaml import AgentEntry, RoomsConfig
from miniroom.engine import Agent, Sleep, directory_for_cwd
from miniroom.llm import ModelConfigError, agent_dir_from_env, resolve_model
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.live_config import LiveConfig, ReadsLiveConfig
from miniroom.tools import sandbox_problem

ROOM_CONVERSATION = "room"
# Room sessions get ids derived from (agent, room, thread), so a restart finds each conversation's file again.
_SESSION_NAMESPACE = uuid.UUID("5b0c1f4e-7a53-4d0e-9a57-6d1d2f3c9e10")


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


def model_problems(config: RoomsConfig, env: Mapping[str, str]) -> list[str]:
    """Why an agent's model (or the configured router's) cannot be used, e.g. no API key; one line each."""
    users = {f"Agent {name}": agent.model or config.defaults.model for name, agent in config.agents.items()}
    if config.router.model:
        users["The router"] = config.router.model
    problems = []
    for user, alias in users.items():
        choice = model_choice(config, alias, env)
        try:
            resolve_model(choice.name, choice.env, agent_dir_from_env(choice.env))
        except ModelConfigError as error:
            named = f" (model alias {alias})" if alias else ""
            problems.append(f"{user}{named}: {error} Until then its model requests fail.")
    return problems


def profile_problems(
    config: RoomsConfig, env: Mapping[str, str], project_dir: Path
) -> tuple[list[str], list[str]]:
    """(errors, warnings) of the agents' profiles as their turns will resolve them, each naming its agents.

    config.yaml's own variables are checked with the file; this adds what the process environment sets
    (`AGENT_BACKEND`, `MINI_PROFILE_*`), which would otherwise fail, or warn at, every turn."""
    errors: dict[str, list[str]] = {}
    warnings: dict[str, list[str]] = {}
    for name, agent in config.agents.items():
        choice = model_choice(config, agent.model or config.defaults.model, env)
        try:
            resolved = resolve_profile(project_dir, choice.env, choice.variables, defaults=SERVE_DEFAULTS)
        except ProfileError as error:
            errors.setdefault(str(error), []).append(name)
            continue
        for warning in (*resolved.warnings, *_sandbox_problems(resolved.settings.sandbox)):
            warnings.setdefault(warning, []).append(name)
    return _by_agents(errors), _by_agents(warnings)


def _sandbox_problems(mode: SandboxMode) -> list[str]:
    """Why the sandbox the profile asks for cannot be made here, with the way out: never run unsandboxed."""
    problem = sandbox_problem(mode)
    if problem is None:
        return []
    return [
        f"{problem}. Until then its shell commands do not run; to run them unsandboxed instead, set "
        "sandbox: off in .miniroom/miniagent.yml (or MINI_PROFILE_SANDBOX=off)"
    ]


def _by_agents(messages: Mapping[str, list[str]]) -> list[str]:
    return [
        f"{'Agent' if len(names) == 1 else 'Agents'} {', '.join(names)}: {message}"
        for message, names in messages.items()
    ]


def safe_name(name: str) -> str:
    """A Matrix id as one path component: ids may hold `/`, which would make a subfolder."""
    cleaned = name.replace("/", "_").replace("\\", "_").replace("\0", "_")
    return cleaned if cleaned not in ("", ".", "..") else f"_{cleaned}"


def room_identity(name: str, agent: AgentEntry) -> str:
    """Who the agent is in the room: the first line of its prompt, in either mode."""
    return (
        f"You are {agent.display_name or name}, an agent in a chat room. Each message you get starts with "
        "the sender's name. End your reply with @name to hand the conversation to another agent."
    )


def client_identity(name: str, agent: AgentEntry) -> str:
    """Who the agent is to a client of the OpenAI-compatible API: no room, one person's own chat client."""
    return (
        f"You are {agent.display_name or name}. You are reached through an OpenAI-compatible API from a "
        "person's own chat client: each message you get is theirs."
    )


def room_prompt(name: str, agent: AgentEntry, identity: str | None = None) -> str:
    """What the agent is told about its place in the room (or, with `identity`, elsewhere): who it is, its
    role and its instructions."""
    lines = [identity or room_identity(name, agent)]
    if agent.role:
        lines.append(f"Your role: {agent.role}")
    lines += agent.instructions
    return "\n".join(lines)


def _with_memory(prompt: str, agent: AgentEntry, workspace: Path) -> str:
    """`prompt` and, for an agent with file memory, its memory as it stands now."""
    return f"{prompt}\n\n{memory_prompt(workspace)}" if agent.memory == "file" else prompt


class AgentFactory(ReadsLiveConfig):
    """Engine agents for room conversations: settings from the project, one session per conversation.

    `project_dir` (the folder of config.yaml) holds the `.miniroom/` settings of every agent; each agent
    works in its own folder under `<data_dir>/workspaces/`, and its sessions live with all others under
    MINI_AGENT_DIR, one folder per working folder.
    """

    def __init__(
        self,
        config: RoomsConfig | LiveConfig,
        data_dir: Path,
        env: Mapping[str, str],
        project_dir: Path,
        retry_sleep: Sleep = asyncio.sleep,
    ) -> None:
        """`retry_sleep` is the agents' pause before a retry."""
        self.read_config(config)
        self.data_dir, self.env, self.project_dir = data_dir, env, project_dir
        self.retry_sleep = retry_sleep

    def model_choice(self, agent: str) -> ModelChoice:
        alias = self.config.agents[agent].model or self.config.defaults.model
        return model_choice(self.config, alias, self.env)

    def session_path(self, agent: str, conversation: Conversation, team: str | None = None) -> Path:
        """The conversation's session file, under MINI_AGENT_DIR like every other session; an agent
        working for `team` there has a session of its own."""
        thread = conversation.thread_root or ROOM_CONVERSATION
        parts = (agent, conversation.room_id, thread, *((f"team:{team}",) if team else ()))
        key = uuid.uuid5(_SESSION_NAMESPACE, "\0".join(parts))
        env = self.model_choice(agent).env
        folder = directory_for_cwd(agent_dir_from_env(env), self.workspace(agent))
        return folder / f"room_{key}.jsonl"

    def workspace(self, agent: str) -> Path:
        return self.data_dir / "workspaces" / safe_name(agent)

    def own_workspace(self, agent: str) -> Path | None:
        """The agent's working folder; None for a team, whose members each work in their own."""
        return self.workspace(agent) if agent in self.config.agents else None

    def command_line(self, agent: str, *, minimal: bool) -> CliMode:
        """How the agent's shells reach its other tools; in minimal mode that, its identity and its
        minimal_instructions are all its prompt holds."""
        settings = self.config.agents[agent]
        return CliMode(
            minimal=minimal,
            identity=room_identity(agent, settings),
            instructions=tuple(settings.minimal_instructions),
            tools_setting=f"agents.{agent}.tools in config.yaml",
            memory=settings.memory == "file",
        )

    def shell_problems(self, agent: str) -> list[str]:
        """Why the agent has no bash tool (which minimal mode needs), each with its fix."""
        team = self.config.teams.get(agent)
        if team is not None:
            return [
                f"{agent} is a team: its members {', '.join(team.agents)} answer in their own sessions, "
                "so minimal mode is chosen for an agent, not a team"
            ]
        choice = self.model_choice(agent)
        profile = resolve_profile(self.project_dir, choice.env, choice.variables)
        tools = self.config.agents[agent].tools or None
        return shell_problems(profile.settings, tools, f"agents.{agent}.tools in config.yaml")

    def build(
        self,
        agent: str,
        conversation: Conversation,
        command_line: CliMode | None = None,
        team: str | None = None,
        identity: str | None = None,
        resume_calls: Collection[str] = (),
    ) -> Agent:
        """The agent with its model, profile, working folder and room instructions; raises on bad settings.
        With `command_line` its shells reach its other tools through `miniroom-agent`; with `team` it works
        as a member of that team (in a session of its own); `identity` replaces the room's first line;
        `resume_calls` are left waiting for `Agent.resume_calls`."""
        settings = self.config.agents[agent]
        choice = self.model_choice(agent)
        cwd = self.workspace(agent)
        cwd.mkdir(parents=True, exist_ok=True)
        return build_agent(
            choice.name,
            cwd,
            choice.env,
            SessionChoice(path=self.session_path(agent, conversation, team)),
            options=AgentOptions(
                model_variables=choice.variables,
                project_dir=self.project_dir,
                extra_prompt=_with_memory(room_prompt(agent, settings, identity), settings, cwd),
                tool_allowlist=settings.tools or None,  # the agent's own list narrows its profile's tools
                command_line=command_line,
                max_tool_calls_per_turn=settings.max_tool_calls_per_turn,
                profile_defaults=SERVE_DEFAULTS,
                resume_calls=resume_calls,
                retry_sleep=self.retry_sleep,
            ),
        )
