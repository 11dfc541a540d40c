"""agent layer: building one agent from settings, prompt and tools; profiles, subagents, minimal mode.

The layer's one public face: other layers import from here, never from its modules (the architecture test
holds them to it); each name loads with its module at first use.
"""

import typing

from miniroom.config import faces

if typing.TYPE_CHECKING:
    from miniroom.agent.builder import SessionChoice, build_agent
    from miniroom.agent.cli_access import CliAccess, ResponseScope, cli_turn
    from miniroom.agent.config_check import VALIDATORS, check_project
    from miniroom.agent.config_yaml_check import check_config_file, load_checked_config, load_config
    from miniroom.agent.external import load_external, mcp_servers
    from miniroom.agent.memory import memory_prompt
    from miniroom.agent.minimal import CliMode, shell_problems, unavailable_message
    from miniroom.agent.modes import switch_mode
    from miniroom.agent.options import AgentOptions
    from miniroom.agent.people import offer_person
    from miniroom.agent.profile import (
        PROFILE_NAME,
        SERVE_DEFAULTS,
        ProfileSettings,
        SandboxMode,
        resolve_profile,
    )
    from miniroom.agent.prompt import BASE_PROMPT
    from miniroom.agent.session_settings import plain_value
    from miniroom.agent.subagents.child import STOP_NOTE_TYPE
    from miniroom.agent.subagents.progress import CHILD_EVENT_KEY, SubagentStatus, progress_line, short_count
    from miniroom.agent.switching import switch_model, switch_thinking
    from miniroom.agent.toolkits import parse_qualified, tool_name
    from miniroom.agent.variables import ProfileError, parse_variables

__all__ = [
    "BASE_PROMPT",
    "CHILD_EVENT_KEY",
    "PROFILE_NAME",
    "SERVE_DEFAULTS",
    "STOP_NOTE_TYPE",
    "VALIDATORS",
    "AgentOptions",
    "CliAccess",
    "CliMode",
    "ProfileError",
    "ProfileSettings",
    "ResponseScope",
    "SandboxMode",
    "SessionChoice",
    "SubagentStatus",
    "build_agent",
    "check_config_file",
    "check_project",
    "cli_turn",
    "load_checked_config",
    "load_config",
    "load_external",
    "mcp_servers",
    "memory_prompt",
    "offer_person",
    "parse_qualified",
    "parse_variables",
    "plain_value",
    "progress_line",
    "resolve_profile",
    "shell_problems",
    "short_count",
    "switch_mode",
    "switch_model",
    "switch_thinking",
    "tool_name",
    "unavailable_message",
]

if not typing.TYPE_CHECKING:  # for mypy, the names are the imports above
    __getattr__ = faces.lazy_face(__name__, __file__)
