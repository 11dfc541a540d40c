"""Building one agent: profile, model, session, tools and prompt, from the command line and environment."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from miniroom.agent.assembly import (
    agent_config,
    choose_thinking,
    record_model,
    shell_sandbox,
    standard_tools,
    tool_filter,
)
from miniroom.agent.children import ChildBuilder, Inherited
from miniroom.agent.external import (
    ExternalSettings,
    ask_rules,
    load_external,
    mcp_servers,
    turn_hooks,
)
from miniroom.agent.modes import PromptFacts, prompt_and_tools, server_sources
from miniroom.agent.options import NO_OPTIONS, AgentOptions
from miniroom.agent.profile import (
    ProfileSettings,
    ResolvedProfile,
    resolve_profile,
)
from miniroom.agent.retry import load_retry_policy
from miniroom.agent.session_settings import SETTINGS_ENTRY, frozen_settings, session_web
from miniroom.agent.skills import discover_skills
from miniroom.agent.subagents.manager import (
    ChatSessions,
    SubagentManager,
    close_interrupted_children,
    open_task_store,
)
from miniroom.agent.subagents.offer import subagent_tools
from miniroom.engine import (
    Agent,
    RetryPolicy,
    Session,
    SessionError,
    Tool,
    directory_for_cwd,
    find_session_path,
    latest_session_path,
    session_id_of,
)
from miniroom.hooks.payloads import SessionFacts
from miniroom.llm import (
    agent_dir_from_env,
    resolve_model,
)
from miniroom.web import load_catalogues

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


def _stored_model_name(session: Session) -> str | None:
    entry = session.latest("model_change")
    return f"{entry['provider']}/{entry['modelId']}" if entry else None


def _read_project(
    settings_dir: Path,
    env: Mapping[str, str],
    variables: Mapping[str, str],
    defaults: ProfileSettings | None = None,
) -> tuple[ResolvedProfile, RetryPolicy, ExternalSettings]:
    """The project's settings files, as this agent resolves them; their warnings go to the log."""
    resolved = resolve_profile(settings_dir, env, variables, defaults=defaults or ProfileSettings())
    retry, retry_warnings = load_retry_policy(settings_dir)
    for warning in (*resolved.warnings, *retry_warnings):
        log.warning(warning)
    return resolved, retry, load_external(settings_dir)


def build_agent(
    model_name: str | None,
    cwd: Path,
    env: Mapping[str, str],
    choice: SessionChoice,
    client: httpx.AsyncClient | None = None,
    options: AgentOptions = NO_OPTIONS,
) -> Agent:
    """Resolve profile and model, open the session (recording changes) and assemble the agent.

    With `options.command_line`, shell commands reach the agent's other tools through `miniroom-agent`; in
    minimal mode that is all: a short prompt and one Bash tool. The calls of `options.resume_calls` are left
    without a result, for `Agent.resume_calls`; other unanswered calls are closed.
    """
    agent_dir = agent_dir_from_env(env)
    settings_dir = options.settings_dir(cwd)
    variables = options.model_variables
    resolved, retry, external = _read_project(settings_dir, env, variables, options.profile_defaults)
    session = open_session(agent_dir, cwd, choice)
    web = session_web(session, load_catalogues(settings_dir))
    session, settings, retry = frozen_settings(
        session, resolved, retry, choice.path is not None, external.fingerprints, web
    )
    model, suffix = resolve_model(
        model_name or env.get("MODEL") or _stored_model_name(session) or None, env, agent_dir
    )
    thinking = choose_thinking(settings, suffix, session)
    record_model(session, model, thinking)
    interrupted = session.repair_interrupted_tool_calls(keep=options.resume_calls)
    skills = discover_skills(cwd, agent_dir)
    enabled = tool_filter(settings, options.tool_allowlist)
    inherited = Inherited(
        ResolvedProfile(_profile_name(session), settings, {}),
        retry,
        external,
        dataclasses.replace(web, warnings=()),  # logged once, here
    )
    children = ChildBuilder(model, thinking, cwd, env, options, inherited)
    sandbox = shell_sandbox(settings, cwd, settings_dir, env)
    tools = standard_tools(skills, enabled, settings_dir, variables, env, web, sandbox)
    tools += _subagent_tools(children, session, agent_dir, settings, interrupted)
    facts = PromptFacts(
        cwd,
        agent_dir,
        settings,
        skills,
        enabled,
        options.extra_prompt,
        options.tool_allowlist,
        sandbox,
        ask_rules(external),
    )
    use_servers = options.external_tools and bool(external.servers)
    servers = mcp_servers(external, cwd, variables, env, enabled) if use_servers else None
    command_line = options.command_line
    prompt, sent, offer = prompt_and_tools(facts, tools, command_line, servers)
    minimal = command_line is not None and command_line.minimal
    # minimal mode sends the model no schema but the Bash tool's: MCP tools are reached through the CLI
    session_facts = SessionFacts(session.id, session.path, cwd, model.ref)
    config = dataclasses.replace(
        agent_config(model, prompt, sent, cwd, settings, thinking, session, retry),
        tool_sources=[] if minimal else server_sources(servers),
        hooks=turn_hooks(external, session_facts, settings_dir, commands=options.external_tools),
        max_tool_calls_per_turn=options.max_tool_calls_per_turn,
        command_line=offer,
    )
    return Agent(config, session, client, sleep=options.retry_sleep)


def _subagent_tools(
    children: ChildBuilder,
    session: Session,
    agent_dir: Path,
    settings: ProfileSettings,
    interrupted: list[str],
) -> list[Tool]:
    """The four subagent tools of a root chat, over its background tasks and subagents (a recreated session's
    too); the subagents of `interrupted` calls (a killed process) are closed first."""
    folder = directory_for_cwd(agent_dir, children.cwd)  # where its subagents' sessions are
    close_interrupted_children(session, interrupted, folder)
    recreated = session.recreated_from
    previous = (
        recreated.previous_id if recreated is not None and recreated.previous_id != session.id else None
    )
    store = open_task_store(agent_dir, session.id, previous)
    ids = (session.id,) if previous is None else (session.id, previous)
    sessions = ChatSessions(folder, ids)
    return subagent_tools(SubagentManager(children, store, sessions, settings.max_parallel_agents))


def _profile_name(session: Session) -> str | None:
    entry = session.latest(SETTINGS_ENTRY)
    name = entry.get("profile") if entry else None
    return name if isinstance(name, str) else None
