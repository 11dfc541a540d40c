"""The `miniroom-agent` API of `miniroom serve`: the service behind it, and its listeners besides the web
chat's (on Matrix, the API alone at --host:--port; an isolated script gateway's own port)."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.config.secret_variables import API_KEY_VARIABLE, API_TOKEN_VARIABLE
from miniroom.minimal.deployment import (
    Deployment,
    DeploymentError,
    cli_url,
    deployment_problems,
    gateway_port,
    reachable_url,
)
from miniroom.minimal.receipts import RECEIPTS_FILE, ReceiptStore
from miniroom.minimal.service import AgentCli
from miniroom.web.listeners import add_own_listener

if TYPE_CHECKING:
    import uvicorn

    from miniroom.rooms.runtime.metrics import RoomMetrics
    from miniroom.server.probes import Readiness

log = logging.getLogger(__name__)
LOCK_VARIABLES = (API_TOKEN_VARIABLE, API_KEY_VARIABLE)


@dataclass
class Listener:
    """A server on a socket bound before anything starts; `announce` is printed once it serves."""

    server: uvicorn.Server
    socket: socket.socket
    announce: str | None = None


def listen(host: str, port: int, option: str = "--port") -> socket.socket:
    """A listening socket, bound before anything starts so a busy port fails plainly; fetch and search
    never reach it (for the life of the process)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        listening = socket.create_server((host, port), family=family)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise OSError(
            f"cannot listen on {host}:{port} ({reason}): another program uses that port. Stop it, or "
            f"choose another {option}; a second miniroom serve also needs a data folder of its own"
        ) from None
    add_own_listener(listening)
    return listening


def is_locked(env: Mapping[str, str]) -> bool:
    return any(env.get(name) for name in LOCK_VARIABLES)


def agent_cli(
    env: Mapping[str, str], data_dir: Path, host: str, port: int, *, insecure: bool, exposed: bool
) -> AgentCli:
    """The service for agents' shells; what the deployment lacks for it is logged, and keeps it off."""
    api_url = reachable_url(host, port)
    deployment = Deployment(api_url, exposed=exposed, open_access=insecure and not is_locked(env))
    problems = deployment_problems(env, deployment)
    try:
        url = cli_url(env, api_url)
    except DeploymentError:
        url = api_url  # the problem is listed: shells get no grant
    for problem in problems:
        log.warning(
            "Agents' shells get no miniroom-agent and no minimal mode until this is fixed: %s", problem
        )

    async def address() -> str:
        return url

    return AgentCli(ReceiptStore(data_dir / RECEIPTS_FILE), address, deployment_problems=problems)


def api_listener(
    service: AgentCli,
    host: str,
    port: int,
    *,
    what: str,
    option: str,
    probes: tuple[RoomMetrics, Readiness] | None = None,
) -> Listener:
    """The `miniroom-agent` routes alone on (host, port), with `probes` the health, readiness and metrics
    routes too."""
    from miniroom.server import DEFAULT_HOSTS
    from miniroom.server.app import create_agent_app
    from miniroom.server.serve import build_server

    listening = listen(host, port, option)
    metrics, readiness = probes if probes is not None else (None, None)
    app = create_agent_app(
        service, metrics=metrics, readiness=readiness, allowed_hosts=(*DEFAULT_HOSTS, host)
    )
    server = build_server(app, host=host, port=port, handle_signals=False)
    shown = f"[{host}]" if ":" in host else host
    return Listener(server, listening, f"miniroom: {what} at http://{shown}:{port}/")


def gateway_listener(service: AgentCli, env: Mapping[str, str], host: str) -> Listener | None:
    """The isolated script gateway's listener, which serves the CLI routes only, when configured."""
    try:
        port = gateway_port(env)
    except DeploymentError:
        return None  # listed among the deployment's problems
    if port is None:
        return None
    return api_listener(
        service,
        host,
        port,
        what="script gateway (miniroom-agent)",
        option="port in MINIROOM_SCRIPT_GATEWAY_PORT",
    )
