"""An agent's mode: standard (its prompt and every tool's schema) or minimal (a short prompt and one Bash
tool, the other tools reached through `miniroom-agent`), and what its shell commands reach through the CLI."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.agent.assembly import ToolFilter, prompt_parts, shell_sandbox, standard_tools, tool_filter
from miniroom.agent.context_files import load_context_files
from miniroom.agent.minimal import (
    CLI_HINT,
    CliMode,
    approval_problems,
    context_documents,
    context_name,
    minimal_prompt,
    require_shell,
    shell_problems,
)
from miniroom.agent.profile import ProfileSettings
from miniroom.agent.session_settings import session_settings, session_web
from miniroom.agent.skills import Skill, discover_skills
from miniroom.agent.tool_names import AGENT_TOOL_NAMES
from miniroom.agent.toolkits import mcp_toolkit, offered_through_cli, toolkit_names
from miniroom.engine import Agent, CliOffer, ClosableTool, Tool, ToolSource
from miniroom.hooks.deny import DenyRule, rule_naming
from miniroom.llm import agent_dir_from_env
from miniroom.tools import DeclaredTool, OutputFolder, Sandbox
from miniroom.web import load_catalogues

if TYPE_CHECKING:
    from miniroom.mcp.manager import McpTools


@dataclass(frozen=True)
class PromptFacts:
    """What the prompt is made from."""

    cwd: Path
    agent_dir: Path
    settings: ProfileSettings
    skills: Sequence[Skill]
    enabled: ToolFilter
    extra_prompt: str
    tool_allowlist: Collection[str] | None
    sandbox: Sandbox | None = None  # where its shell commands run
    ask_rules: Sequence[DenyRule] = ()  # hooks.yml's: the calls that wait for a person's approval


def prompt_and_tools(
    facts: PromptFacts,
    tools: list[Tool],
    command_line: CliMode | None,
    servers: McpTools | None = None,
) -> tuple[str, list[Tool], CliOffer]:
    """The system prompt, the tools the model is sent, and what shell commands reach through the CLI:
    `servers` (MCP) too, as `mcp_<server>` toolkits."""
    settings, cwd = facts.settings, facts.cwd
    files = load_context_files(cwd, facts.agent_dir, settings.load_claude_md, settings.load_agents_md)
    extra = [facts.extra_prompt] if facts.extra_prompt else []
    standard = prompt_parts(cwd, settings, facts.skills, facts.enabled, files) + extra
    if command_line is None:
        return "\n\n".join(standard), tools, CliOffer()
    instructions = prompt_parts(cwd, settings, facts.skills, facts.enabled, []) + extra
    documents = context_documents("\n\n".join(instructions), files, cwd, facts.agent_dir)
    sources = server_sources(servers)
    # Where no one may be asked mid-script (a standard agent's shell, a subagent), tools that wait for
    # approval are called directly or not at all; shell commands that wait for it get no CLI in standard mode.
    asking = () if command_line.minimal and command_line.can_ask else facts.ask_rules
    offered = [
        tool
        for tool in offered_through_cli(tools, minimal=command_line.minimal)
        if not rule_naming(asking, tool.name)
    ]
    offer = CliOffer(offered, documents, minimal=command_line.minimal, sources=sources)
    shell_asks = rule_naming(asking, "bash")
    if not command_line.minimal:
        hint = [CLI_HINT] if facts.enabled("bash") and shell_asks is None else []
        return "\n\n".join(standard + hint), tools, offer if shell_asks is None else CliOffer()
    require_shell(
        shell_problems(settings, facts.tool_allowlist, command_line.tools_setting) + approval_problems(asking)
    )
    names = [context_name(file, cwd, facts.agent_dir) for file in files]
    mcp = [mcp_toolkit(entry.name) for entry in servers.enabled] if sources and servers else []
    prompt = minimal_prompt(
        command_line, cwd, names, toolkit_names(offer.tools) + mcp, settings.minimal_bash_timeout
    )
    bash = DeclaredTool(
        "miniroom.tools.minimal_bash:MinimalBashTool",
        settings.minimal_bash_timeout,
        OutputFolder(),
        facts.sandbox,
    )
    return prompt, [bash], offer


def server_sources(servers: McpTools | None) -> list[ToolSource]:
    """The MCP servers as the tool source of the agent's requests or its CLI; none without one enabled."""
    return [servers] if servers is not None and servers.enabled else []


def switch_mode(agent: Agent, env: Mapping[str, str], command_line: CliMode) -> None:
    """Minimal or standard mode from the next request on, in the same session (`/mode` in chat)."""
    settings = session_settings(agent.session)
    cwd, agent_dir = agent.config.cwd, agent_dir_from_env(env)
    skills, enabled = discover_skills(cwd, agent_dir), tool_filter(settings, None)
    current = [*agent.config.tools, *agent.config.command_line.tools]
    kept = list({tool.name: tool for tool in current if tool.name in AGENT_TOOL_NAMES}.values())
    for tool in agent.config.tools:
        if isinstance(tool, ClosableTool):
            tool.close()
    web = session_web(agent.session, load_catalogues(cwd))
    sandbox = shell_sandbox(settings, cwd, cwd, env)
    tools = standard_tools(skills, enabled, cwd, {}, env, web, sandbox) + kept
    facts = PromptFacts(cwd, agent_dir, settings, skills, enabled, "", None, sandbox, _ask_rules(agent))
    from miniroom.mcp.manager import McpTools  # without the SDK: it connects nothing

    servers = next((source for source in agent.sources() if isinstance(source, McpTools)), None)
    prompt, sent, offer = prompt_and_tools(facts, tools, command_line, servers)
    # the same connections, which minimal mode reaches through the CLI only
    direct = [] if command_line.minimal else server_sources(servers)
    agent.reconfigure(
        dataclasses.replace(
            agent.config, system_prompt=prompt, tools=sent, command_line=offer, tool_sources=direct
        )
    )


def _ask_rules(agent: Agent) -> Sequence[DenyRule]:
    """The ask rules the agent's session was built with (its hooks.yml's, frozen with the session)."""
    settings = getattr(agent.config.hooks, "settings", None)
    return getattr(settings, "ask", ())
