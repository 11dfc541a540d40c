"""Where shell commands reach miniroom's API, and what a deployment must have for `miniroom-agent`.

Shells that run elsewhere (workers) call `MINIROOM_AGENT_CLI_PRIMARY_URL` when it is set; else, with an
isolated script gateway (`MINIROOM_SCRIPT_GATEWAY_ISOLATED=true` and `MINIROOM_SCRIPT_GATEWAY_PORT`), the
origin of `MINIROOM_SCRIPT_GATEWAY_URL`, whose gateway-only listener also serves the CLI routes; else the
API's own address. An API other machines can reach must be locked with a key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from miniroom.config.secret_variables import API_KEY_VARIABLE, API_TOKEN_VARIABLE

PRIMARY_URL = "MINIROOM_AGENT_CLI_PRIMARY_URL"
GATEWAY_ISOLATED = "MINIROOM_SCRIPT_GATEWAY_ISOLATED"
GATEWAY_PORT = "MINIROOM_SCRIPT_GATEWAY_PORT"
GATEWAY_URL = "MINIROOM_SCRIPT_GATEWAY_URL"
GATEWAY_PATH = "/api/script-gateway"
OPEN_COMPAT = "OPENAI_COMPAT_ALLOW_UNAUTHENTICATED"
_TRUE = frozenset({"1", "true", "yes", "on"})


class DeploymentError(ValueError):
    """A deployment setting is wrong; the message names the variable and the fix."""


@dataclass(frozen=True, slots=True)
class Deployment:
    """How `miniroom serve` runs its API: served at all, where, and whether other machines can reach it."""

    api_url: str | None  # None: started without the API (--no-api)
    exposed: bool = False  # the API listens on an address other machines can reach
    open_access: bool = False  # it serves them without a key (--insecure)


def _flag(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() in _TRUE


def origin_of(url: str, variable: str, path: str = "") -> str:
    """`scheme://host:port` of `url`, which must be http(s) with only `path` after the address."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise DeploymentError(f"{variable}={url!r} is not an http(s)://host:port address: write it as one")
    if parts.path.rstrip("/") != path:
        want = f"its path must be {path}" if path else "it must be a plain origin, with no path"
        raise DeploymentError(f"{variable}={url!r}: {want}, e.g. http://miniroom:8765{path}")
    try:
        parts.port  # noqa: B018 - only to check it
    except ValueError:
        raise DeploymentError(f"{variable}={url!r} has a port that is not a number from 1 to 65535") from None
    return f"{parts.scheme}://{parts.netloc}"


def gateway_port(env: Mapping[str, str]) -> int | None:
    """The port of the isolated script gateway's own listener, when one is configured."""
    if not _flag(env, GATEWAY_ISOLATED):
        return None
    raw = env.get(GATEWAY_PORT, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= 65535:
        raise DeploymentError(f"{GATEWAY_PORT}={raw!r} must be a port number from 1 to 65535")
    return int(raw)


def cli_url(env: Mapping[str, str], api_url: str) -> str:
    """The address shell commands call: the primary URL, else the isolated gateway's origin, else the API."""
    if env.get(PRIMARY_URL, "").strip():
        return origin_of(env[PRIMARY_URL], PRIMARY_URL)
    if gateway_port(env) is not None:
        url = env.get(GATEWAY_URL, "").strip()
        if not url:
            raise DeploymentError(
                f"{GATEWAY_ISOLATED}=true and {GATEWAY_PORT} are set but {GATEWAY_URL} is not: set it to the "
                f"gateway's address, e.g. http://miniroom:{env[GATEWAY_PORT].strip()}{GATEWAY_PATH}"
            )
        return origin_of(url, GATEWAY_URL, GATEWAY_PATH)
    return api_url


def reachable_url(host: str, port: int) -> str:
    """The API's address as a local shell calls it: an any-address bind is reached on loopback."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return f"http://{host}:{port}"
    if address.is_unspecified:
        return f"http://{'[::1]' if address.version == 6 else '127.0.0.1'}:{port}"
    return f"http://{f'[{address}]' if address.version == 6 else address}:{port}"


def deployment_problems(env: Mapping[str, str], deployment: Deployment) -> list[str]:
    """Everything the deployment lacks for `miniroom-agent`, each with its fix."""
    if deployment.api_url is None:
        return ["miniroom serve runs without its API (--no-api): start it without --no-api"]
    problems = []
    try:
        cli_url(env, deployment.api_url)
    except DeploymentError as error:
        problems.append(str(error))
    workers = bool(env.get(PRIMARY_URL, "").strip()) or gateway_port(env) is not None
    if deployment.exposed or workers:
        problems += _lockdown_problems(env, deployment)
    return problems


def _lockdown_problems(env: Mapping[str, str], deployment: Deployment) -> list[str]:
    """An API that shells elsewhere call is reachable from other machines too: it must take a key."""
    problems = []
    if API_KEY_VARIABLE in env and not env[API_KEY_VARIABLE] and not env.get(API_TOKEN_VARIABLE):
        problems.append(
            f"{API_KEY_VARIABLE} is set but empty, which keeps the API open to everyone: set it to a secret"
        )
    elif not (env.get(API_KEY_VARIABLE) or env.get(API_TOKEN_VARIABLE)) or deployment.open_access:
        problems.append(
            f"the API can be reached from other machines without a key: set {API_KEY_VARIABLE} to a secret "
            "(and do not pass --insecure)"
        )
    if env.get(OPEN_COMPAT, "").strip():
        problems.append(f"{OPEN_COMPAT} is set: unset it")
    return problems
