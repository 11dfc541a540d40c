"""Building one agent: profile, model, session, tools and prompt, from the command line and environment."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from miniroom.agent.context_files import load_context_files, render_context
from miniroom.agent.profile import ProfileSettings, resolve_profile
from miniroom.agent.prompt import BASE_PROMPT, FORMS_PROMPT, system_prompt
from miniroom.agent.session_settings import frozen_settings, session_settings
from miniroom.agent.skills import discover_skills, render_skill_list
from miniroom.agent.tool_names import allowed_with_requirements
from miniroom.engine import (
    Agent,
    AgentConfig,
    Session,
    SessionError,
    ToolSettings,
    directory_for_cwd,
    find_session_path,
    latest_session_path,
    load_retry_policy,
    session_id_of,
)
from miniroom.llm import (
    DEFAULT_THINKING_LEVEL,
    THINKING_LEVELS,
    Model,
    ModelConfigError,
    RequestOptions,
    ThinkingLevel,
    agent_dir_from_env,
    env_value,
    known_providers,
    resolve_model,
)
from miniroom.tools import BUILTIN_TOOL_NAMES, builtin_tools

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionChoice:
    """Which session a command works in: a new one, the folder's latest, one by id, or one file by path."""

    continue_latest: bool = False
    session_id: str | None = None
    # This file, created on first use with the id its name ends in (the room runtime's conversations).
    path: Path | None = None


def open_session(agent_dir: Path, cwd: Path, choice: SessionChoice) -> Session:
    session = _open_chosen_session(agent_dir, cwd, choice)
    for warning in session.load_report.warnings(session.path):
        log.warning(warning)
    return session


def _open_chosen_session(agent_dir: Path, cwd: Path, choice: SessionChoice) -> Session:
    if choice.path is not None:
        return open_session_file(choice.path, cwd)
    if choice.session_id:
        return Session.load(find_session_path(agent_dir, choice.session_id))
    if choice.continue_latest:
        latest = latest_session_path(agent_dir, cwd)
        if latest is None:
            raise SessionError(
                f"No earlier session in {cwd} to continue: run without --continue to start one."
            )
        return Session.load(latest)
    return Session.create(directory_for_cwd(agent_dir, cwd), cwd)


def open_session_file(path: Path, cwd: Path) -> Session:
    """The session stored at `path`, created there (header and all) when it does not exist yet."""
    if path.exists():
        return Session.load(path)
    return Session.create(path.parent, cwd, path.name, session_id=session_id_of(path))


def session_header_name(model: Model, settings: ProfileSettings) -> str:
    if settings.session_header:
        return settings.session_header
    is_opencode = model.provider.startswith("opencode") or "opencode.ai" in model.base_url
    return "X-Opencode-Session" if is_opencode else "X-Agent-Session"


def session_headers(model: Model, settings: ProfileSettings, session_id: str) -> dict[str, str]:
    """The session-id header, unless models.json already sets a header of that name (which then wins)."""
    name = session_header_name(model, settings)
    if any(key.lower() == name.lower() for key, _ in model.headers):
        return {}
    return {name: session_id}


def choose_thinking(
    settings: ProfileSettings, suffix: ThinkingLevel | None, session: Session
) -> ThinkingLevel:
    """The profile's level wins, then the model name's suffix, then the session's stored level."""
    stored = session.latest("thinking_level_change")
    stored_level: ThinkingLevel | None = stored["thinkingLevel"] if stored else None
    return settings.thinking_level or suffix or stored_level or DEFAULT_THINKING_LEVEL


ToolFilter = Callable[[str], bool]


def tool_filter(settings: ProfileSettings, allowlist: Collection[str] | None) -> ToolFilter:
    """The profile's tool choice, narrowed by an allowlist of built-in tool names (None: no narrowing)."""
    if allowlist is None:
        return settings.tool_enabled
    allowed = frozenset(allowlist)
    return lambda name: (
        settings.tool_enabled(name)
        and (name not in BUILTIN_TOOL_NAMES or allowed_with_requirements(name, allowed.__contains__))
    )


def build_prompt(
    cwd: Path, agent_dir: Path, settings: ProfileSettings, skills: list[Any], enabled: ToolFilter
) -> str:
    base = settings.system_prompt or BASE_PROMPT
    parts = [system_prompt(cwd, base), FORMS_PROMPT]
    context = render_context(
        load_context_files(cwd, agent_dir, settings.load_claude_md, settings.load_agents_md)
    )
    if context:
        parts.append(context)
    if skills:  # without load_skill only the line asking to load one goes; the list still informs
        parts.append(render_skill_list(skills, load_skill_enabled=enabled("load_skill")))
    return "\n\n".join(parts)


def request_options(
    model: Model, settings: ProfileSettings, thinking: ThinkingLevel, session: Session
) -> RequestOptions:
    return RequestOptions(
        thinking_level=thinking,
        thinking_budget=settings.thinking_budget,
        max_tokens=settings.max_output_tokens,
        headers=session_headers(model, settings, session.id),
        first_byte_timeout=settings.first_byte_timeout,
        idle_timeout=settings.idle_timeout,
    )


def record_model(session: Session, model: Model, thinking: ThinkingLevel) -> None:
    """Write model and thinking-level changes into the session, so a resume knows what was used."""
    latest_model = session.latest("model_change")
    if latest_model is None or (latest_model["provider"], latest_model["modelId"]) != (
        model.provider,
        model.id,
    ):
        session.append("model_change", provider=model.provider, modelId=model.id)
    latest_level = session.latest("thinking_level_change")
    if latest_level is None or latest_level["thinkingLevel"] != thinking:
        session.append("thinking_level_change", thinkingLevel=thinking)


def _stored_model_name(session: Session) -> str | None:
    entry = session.latest("model_change")
    return f"{entry['provider']}/{entry['modelId']}" if entry else None


def build_agent(
    model_name: str | None,
    cwd: Path,
    env: Mapping[str, str],
    choice: SessionChoice,
    client: httpx.AsyncClient | None = None,
    model_variables: Mapping[str, str] | None = None,
    *,
    project_dir: Path | None = None,
    extra_prompt: str = "",
    tool_allowlist: Collection[str] | None = None,
) -> Agent:
    """Resolve profile and model, open the session (recording changes) and assemble the agent.

    `project_dir` holds the `.miniroom/` settings (default: `cwd`); `extra_prompt` ends the system prompt.
    """
    agent_dir = agent_dir_from_env(env)
    settings_dir = cwd if project_dir is None else project_dir
    resolved = resolve_profile(settings_dir, env, model_variables or {})
    for warning in resolved.warnings:
        log.warning(warning)
    retry, retry_warnings = load_retry_policy(settings_dir)
    for warning in retry_warnings:
        log.warning(warning)
    session = open_session(agent_dir, cwd, choice)
    session, settings, retry = frozen_settings(session, resolved, retry, same_path=choice.path is not None)
    model, suffix = resolve_model(
        model_name or env.get("MODEL") or _stored_model_name(session) or None, env, agent_dir
    )
    thinking = choose_thinking(settings, suffix, session)
    record_model(session, model, thinking)
    session.repair_interrupted_tool_calls()
    skills = discover_skills(cwd, agent_dir)
    enabled = tool_filter(settings, tool_allowlist)
    prompt = build_prompt(cwd, agent_dir, settings, skills, enabled)
    config = AgentConfig(
        model=model,
        system_prompt=f"{prompt}\n\n{extra_prompt}" if extra_prompt else prompt,
        tools=[tool for tool in builtin_tools(skills) if enabled(tool.name)],
        cwd=cwd,
        request_options=request_options(model, settings, thinking, session),
        tool_timeout=settings.tool_call_timeout,
        tool_settings=ToolSettings(settings.read_max_lines, settings.parallel_bash_threads),
        retry=retry,
        max_model_requests=settings.max_model_requests,
    )
    return Agent(config, session, client)


def _apply(agent: Agent, model: Model, thinking: ThinkingLevel) -> None:
    settings = session_settings(agent.session)
    record_model(agent.session, model, thinking)
    options = request_options(model, settings, thinking, agent.session)
    agent.config = dataclasses.replace(agent.config, model=model, request_options=options)


def switch_model(agent: Agent, name: str, env: Mapping[str, str]) -> None:
    """Switch the model mid-dialog, losing nothing; a `:level` suffix switches thinking too."""
    if "/" not in name and not env_value(env, "MINI_PROVIDER"):
        # Without MINI_PROVIDER a bare name would become a `custom` model at MINI_BASE_URL: a typo then
        # only shows at the next request, so the switch must name the provider.
        current = agent.config.model
        raise ModelConfigError(
            f'"{name}" names no provider: write provider/model, e.g. "{current.provider}/{name}" (now '
            f"{current.ref}), or set MINI_PROVIDER. Providers: {', '.join(known_providers())}."
        )
    model, suffix = resolve_model(name, env, agent_dir_from_env(env))
    settings = session_settings(agent.session)
    _apply(agent, model, settings.thinking_level or suffix or agent.config.request_options.thinking_level)


def switch_thinking(agent: Agent, level: str) -> None:
    settings = session_settings(agent.session)
    if level not in THINKING_LEVELS:
        raise ValueError(f"Unknown thinking level '{level}': use one of {', '.join(THINKING_LEVELS)}.")
    if settings.thinking_level and settings.thinking_level != level:
        raise ValueError(
            f"The profile sets thinkingLevel: {settings.thinking_level}, which wins over /thinking."
        )
    _apply(agent, agent.config.model, level)
