"""The environment a tool's child process gets (shells, rg; later MCP servers, hooks, script services).

miniroom's own secrets never reach such a process. Provider keys reach it only when the user names them in
MINI_TOOL_KEYS (comma-separated), e.g. for a script that itself calls a model.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from miniroom.llm import TEMPLATES

log = logging.getLogger(__name__)

PASS_KEYS_VARIABLE = "MINI_TOOL_KEYS"
# The names the server and the Matrix transport read (server.auth, transports.matrix.accounts).
MINIROOM_SECRETS: tuple[str, ...] = ("MINIROOM_API_TOKEN", "MINIROOM_MATRIX_PASSWORD")
MINIROOM_SECRET_PREFIXES: tuple[str, ...] = ("MINIROOM_MATRIX_PASSWORD_",)  # one password per agent
PROVIDER_KEY_VARIABLES: tuple[str, ...] = tuple(
    sorted({"MINI_API_KEY", "TYPESAFE_API_KEY", *(template.key_variable for template in TEMPLATES.values())})
)
_warned: set[str] = set()


def is_miniroom_secret(name: str) -> bool:
    return name in MINIROOM_SECRETS or name.startswith(MINIROOM_SECRET_PREFIXES)


def passed_keys(env: Mapping[str, str]) -> frozenset[str]:
    """The provider key variables MINI_TOOL_KEYS lets through; naming one of miniroom's secrets warns once."""
    names = {name.strip() for name in env.get(PASS_KEYS_VARIABLE, "").split(",") if name.strip()}
    for name in sorted(names):
        if is_miniroom_secret(name) and name not in _warned:
            _warned.add(name)
            log.warning(
                "%s names %s, one of miniroom's own secrets, which never reach a tool's process; "
                "remove it from %s.",
                PASS_KEYS_VARIABLE,
                name,
                PASS_KEYS_VARIABLE,
            )
    return frozenset(name for name in names if not is_miniroom_secret(name))


def tool_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (the process environment) without miniroom's secrets, and without provider keys not passed."""
    source = os.environ if base is None else base
    passed = passed_keys(source)
    return {
        name: value
        for name, value in source.items()
        if not is_miniroom_secret(name) and (name not in PROVIDER_KEY_VARIABLES or name in passed)
    }
