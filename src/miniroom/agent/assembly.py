"""The pieces every agent is assembled from: its prompt, tool set, request options and engine config."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from miniroom.agent.context_files import ContextFile, load_context_files, render_context
from miniroom.agent.profile import (
    ProfileSettings,
)
from miniroom.agent.prompt import BASE_PROMPT, FORMS_PROMPT, sandbox_prompt, system_prompt
from miniroom.agent.skills import Skill, render_skill_list
from miniroom.agent.tool_names import allowed_with_requirements
from miniroom.engine import (
    AgentConfig,
    RetryPolicy,
    Session,
    Tool,
    ToolSettings,
)
from miniroom.llm import (
    DEFAULT_THINKING_LEVEL,
    Model,
    RequestOptions,
    ThinkingLevel,
    agent_dir_from_env,
)
from miniroom.tools import BUILTIN_TOOL_NAMES, OutputFolder, Sandbox, builtin_tools
from miniroom.web import WebCatalogues, web_tools

log = logging.getLogger(__name__)

OPENCODE_HOST = "opencode.ai"  # requests to it, or to an `opencode*` provider, carry X-Opencode-Session


def session_header_name(model: Model, settings: ProfileSettings) -> str:
    if settings.session_header:
        return settings.session_header
    host = (urlsplit(model.base_url).hostname or "").rstrip(".")  # lower-cased by urlsplit
    is_opencode = (
        model.provider.startswith("opencode") or host == OPENCODE_HOST or host.endswith("." + OPENCODE_HOST)
    )
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
    cwd: Path, agent_dir: Path, settings: ProfileSettings, skills: Sequence[Skill], enabled: ToolFilter
) -> str:
    files = load_context_files(cwd, agent_dir, settings.load_claude_md, settings.load_agents_md)
    return "\n\n".join(prompt_parts(cwd, settings, skills, enabled, files))


def prompt_parts(
    cwd: Path,
    settings: ProfileSettings,
    skills: Sequence[Skill],
    enabled: ToolFilter,
    files: Sequence[ContextFile],
) -> list[str]:
    """The base prompt with the working folder, the context files, and the skill list."""
    base = settings.system_prompt or BASE_PROMPT
    parts = [system_prompt(cwd, base), FORMS_PROMPT]
    context = render_context(files)
    if context:
        parts.append(context)
    if skills:  # without load_skill only the line asking to load one goes; the list still informs
        parts.append(render_skill_list(skills, load_skill_enabled=enabled("load_skill")))
    if settings.sandbox != "off" and enabled("bash"):
        parts.append(sandbox_prompt(settings.sandbox, settings.sandbox_network))
    return parts


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
        answer_timeout=settings.answer_timeout,
        max_answer_bytes=settings.max_answer_bytes,
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


def standard_tools(
    skills: Sequence[Skill],
    enabled: Callable[[str], bool],
    settings_dir: Path,
    model_variables: Mapping[str, str],
    env: Mapping[str, str],
    catalogues: WebCatalogues,
    sandbox: Sandbox | None = None,
) -> list[Tool]:
    """The built-in tools the settings enable, then fetch and search over `catalogues` (the lists the session
    keeps): those stand apart from the profile's lists and exist while their catalogue has an enabled service.
    All share one output folder."""
    output = OutputFolder()
    web, warnings = web_tools(settings_dir, model_variables, env, agent_dir_from_env(env), output, catalogues)
    for warning in warnings:
        log.warning(warning)
    return [tool for tool in builtin_tools(skills, output, sandbox) if enabled(tool.name)] + web


def shell_sandbox(
    settings: ProfileSettings, cwd: Path, settings_dir: Path, env: Mapping[str, str]
) -> Sandbox | None:
    """Where the agent's shells run, per its profile (None: unsandboxed): its working folder, with miniroom's
    own hidden: the home, the sessions (MINI_AGENT_DIR), the settings folder when the agent works elsewhere
    (serve's config.yaml and .env), the data folder, and the user's runtime folder (agent sockets)."""
    if settings.sandbox == "off":
        return None
    hidden = [Path.home(), agent_dir_from_env(env), Path(f"/run/user/{os.getuid()}")]
    if settings_dir.resolve() != cwd.resolve():
        hidden.append(settings_dir)
    for variable in ("MINIROOM_CONFIG", "MINIROOM_DATA_DIR"):
        if env.get(variable):
            path = Path(env[variable]).expanduser()
            hidden.append(path.parent if variable == "MINIROOM_CONFIG" else path)
    return Sandbox(settings.sandbox, cwd, hidden=tuple(hidden), network=settings.sandbox_network)


def agent_config(
    model: Model,
    prompt: str,
    tools: list[Tool],
    cwd: Path,
    settings: ProfileSettings,
    thinking: ThinkingLevel,
    session: Session,
    retry: RetryPolicy,
) -> AgentConfig:
    return AgentConfig(
        model=model,
        system_prompt=prompt,
        tools=tools,
        cwd=cwd,
        request_options=request_options(model, settings, thinking, session),
        tool_timeout=settings.tool_call_timeout,
        tool_settings=ToolSettings(
            settings.read_max_lines, settings.parallel_bash_threads, settings.approval_timeout
        ),
        retry=retry,
        max_model_requests=settings.max_model_requests,
    )
