"""Building one agent: its model, session, tools and prompt, from the command line and the environment."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from miniroom.agent.prompt import system_prompt
from miniroom.engine.agent import Agent, AgentConfig
from miniroom.engine.session import Session, SessionError, directory_for_cwd
from miniroom.engine.session_index import find_session_path, latest_session_path
from miniroom.llm.model import DEFAULT_THINKING_LEVEL, Model, ThinkingLevel
from miniroom.llm.registry import agent_dir_from_env, resolve_model
from miniroom.llm.stream import RequestOptions
from miniroom.tools import builtin_tools


@dataclass(frozen=True)
class SessionChoice:
    """Which session a command works in: a new one, the folder's latest, or one by id."""

    continue_latest: bool = False
    session_id: str | None = None


def open_session(agent_dir: Path, cwd: Path, choice: SessionChoice) -> Session:
    if choice.session_id:
        return Session.load(find_session_path(agent_dir, choice.session_id))
    if choice.continue_latest:
        latest = latest_session_path(agent_dir, cwd)
        if latest is None:
            raise SessionError(f"No earlier session in {cwd} to continue: run without --continue to start one.")
        return Session.load(latest)
    return Session.create(directory_for_cwd(agent_dir, cwd), cwd)


def session_header_name(model: Model) -> str:
    is_opencode = model.provider.startswith("opencode") or "opencode.ai" in model.base_url
    return "X-Opencode-Session" if is_opencode else "X-Agent-Session"


def session_headers(model: Model, session_id: str) -> dict[str, str]:
    """The session-id header, unless models.json already sets a header of that name (which then wins)."""
    name = session_header_name(model)
    if any(key.lower() == name.lower() for key, _ in model.headers):
        return {}
    return {name: session_id}


def _stored_model_name(session: Session) -> str | None:
    entry = session.latest("model_change")
    return f"{entry['provider']}/{entry['modelId']}" if entry else None


def _stored_thinking(session: Session) -> ThinkingLevel | None:
    entry = session.latest("thinking_level_change")
    return entry["thinkingLevel"] if entry else None


def build_agent(
    model_name: str | None,
    cwd: Path,
    env: Mapping[str, str],
    choice: SessionChoice,
    client: httpx.AsyncClient | None = None,
) -> Agent:
    """Resolve the model, open the session (recording model changes) and assemble the agent."""
    agent_dir = agent_dir_from_env(env)
    session = open_session(agent_dir, cwd, choice)
    wanted = model_name or env.get("MODEL") or _stored_model_name(session)
    model, suffix_level = resolve_model(wanted or None, env, agent_dir)
    thinking = suffix_level or _stored_thinking(session) or DEFAULT_THINKING_LEVEL
    if _stored_model_name(session) != model.ref:
        session.append("model_change", provider=model.provider, modelId=model.id)
    if _stored_thinking(session) != thinking:
        session.append("thinking_level_change", thinkingLevel=thinking)
    session.repair_interrupted_tool_calls()
    options = RequestOptions(thinking_level=thinking, headers=session_headers(model, session.id))
    config = AgentConfig(model, system_prompt(cwd), builtin_tools(), cwd, options)
    return Agent(config, session, client)
