"""The environment of every process miniroom starts (shells, rg, hooks, MCP servers, fetch and search
scripts), and keeping miniroom's own environment out of their reach.

A child gets only what ordinary programs need (ALLOWED: PATH, HOME, the locale, the CA files...), the proxy
settings without their user names and passwords, and the variables the user names on purpose in MINI_TOOL_ENV
or MINI_TOOL_KEYS (comma-separated). Anything else of miniroom's environment stays out, whatever its name, so
a key is safe however it is called. Each caller then adds what miniroom sets for that one child (a grant, an
MCP server's `env:`, a hook's project folder). Standard library only, so any layer may use it.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Mapping

from miniroom.config.secret_variables import (
    API_KEY_VARIABLE,
    API_TOKEN_VARIABLE,
    MATRIX_PASSWORD_PREFIX,
    MATRIX_PASSWORD_VARIABLE,
)

log = logging.getLogger(__name__)

PASS_ENV_VARIABLE = "MINI_TOOL_ENV"
PASS_KEYS_VARIABLE = "MINI_TOOL_KEYS"  # the same, kept for the provider keys it has always named
PASS_VARIABLES: tuple[str, ...] = (PASS_ENV_VARIABLE, PASS_KEYS_VARIABLE)
# What programs need to run as the user's own: where things are, who and where they run, how to speak, and
# which certificates to trust. None of these holds a secret by convention.
ALLOWED: frozenset[str] = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "TMPDIR",
        "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC",
        "LC_TIME", "LC_ADDRESS", "LC_IDENTIFICATION", "LC_MEASUREMENT", "LC_NAME", "LC_PAPER", "LC_TELEPHONE",
        "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
        "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
        "VIRTUAL_ENV", "JAVA_HOME", "GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME",
    }
)  # fmt: skip
_PROXIES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")
PROXY_VARIABLES: frozenset[str] = frozenset({*_PROXIES, *(name.upper() for name in _PROXIES)})
MINIROOM_SECRETS: tuple[str, ...] = (API_TOKEN_VARIABLE, API_KEY_VARIABLE, MATRIX_PASSWORD_VARIABLE)
# A shell command's own access to the agent's tools (`miniroom-agent`): given to each command apart, so one
# inherited from miniroom's own environment (miniroom started inside an agent's shell) is never passed on.
GRANT_URL_VARIABLE = "MINIROOM_AGENT_URL"
GRANT_TOKEN_VARIABLE = "MINIROOM_AGENT_TOKEN"
# In a sandbox without network, the Unix socket through which the grant's URL is reached (tools.relay).
GRANT_SOCKET_VARIABLE = "MINIROOM_AGENT_SOCKET"
GRANT_VARIABLES: tuple[str, ...] = (GRANT_URL_VARIABLE, GRANT_TOKEN_VARIABLE, GRANT_SOCKET_VARIABLE)
MINIROOM_SECRET_PREFIXES: tuple[str, ...] = (MATRIX_PASSWORD_PREFIX,)
PR_SET_DUMPABLE = 4
_warned: set[str] = set()


def is_miniroom_secret(name: str) -> bool:
    return name in MINIROOM_SECRETS or name in GRANT_VARIABLES or name.startswith(MINIROOM_SECRET_PREFIXES)


def _warn_once(name: str, message: str, *args: object) -> None:
    if name not in _warned:
        _warned.add(name)
        log.warning(message, *args)


def passed_names(env: Mapping[str, str]) -> frozenset[str]:
    """The variables MINI_TOOL_ENV and MINI_TOOL_KEYS name; naming one of miniroom's secrets warns once."""
    named = {
        (name.strip(), variable)
        for variable in PASS_VARIABLES
        for name in env.get(variable, "").split(",")
        if name.strip()
    }
    for name, variable in sorted(named):
        if is_miniroom_secret(name):
            _warn_once(
                name,
                "%s names %s, one of miniroom's own secrets, which never reach a tool's process; "
                "remove it from %s.",
                variable,
                name,
                variable,
            )
    return frozenset(name for name, _ in named if not is_miniroom_secret(name))


def without_credentials(proxy: str) -> str:
    """A proxy URL without the `user:password@` before its host (`http://u:p@proxy:3128` → `http://proxy:3128`)."""
    scheme, separator, rest = proxy.partition("://")
    if not separator:
        scheme, rest = "", proxy
    authority, slash, path = rest.partition("/")
    if "@" not in authority:
        return proxy
    return f"{scheme}{separator}{authority.rpartition('@')[2]}{slash}{path}"


def _proxy(name: str, value: str) -> str:
    plain = without_credentials(value)
    if plain != value:
        _warn_once(
            name,
            "%s holds a user name or password: the processes miniroom starts get the proxy without them; "
            "name %s in %s to pass it whole.",
            name,
            name,
            PASS_ENV_VARIABLE,
        )
    return plain


def tool_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a process miniroom starts, from `base` (default: miniroom's own environment).

    Built just before a child starts, it first makes miniroom non-dumpable, so that whichever command starts
    the child, the child cannot read the rest from /proc/<miniroom's pid>/environ."""
    make_non_dumpable()
    source = os.environ if base is None else base
    passed = passed_names(source)
    env: dict[str, str] = {}
    for name, value in source.items():
        if name in ALLOWED or name in passed:
            env[name] = value
        elif name in PROXY_VARIABLES:
            env[name] = _proxy(name, value)
    return env


@functools.cache
def make_non_dumpable() -> bool:
    """Make /proc/<pid>/environ and /proc/<pid>/mem unreadable to other processes of the same user.

    The processes miniroom starts run as the user too; without this they could read every key miniroom
    holds. Root and holders of CAP_SYS_PTRACE still can. Linux only; elsewhere (and when prctl fails) it
    returns False.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here: most commands never start a process

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
