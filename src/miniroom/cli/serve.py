"""`miniroom serve`: the room runtime over Matrix (a `matrix:` section) or embedded rooms with a web chat."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import logging
import os
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.agent import load_checked_config
from miniroom.cli.common import fail
from miniroom.cli.config_watch import watch_config
from miniroom.cli.init import missing_config
from miniroom.cli.instance_lock import only_instance
from miniroom.cli.process import STOP_SIGNALS
from miniroom.cli.serve_api import Listener, agent_cli, api_listener, gateway_listener, is_locked, listen
from miniroom.config.config_yaml import RoomsConfig
from miniroom.config.errors import UserError
from miniroom.config.paths import config_path, data_dir_for
from miniroom.minimal.service import AgentCli
from miniroom.rooms.runtime import RoomRuntime
from miniroom.rooms.runtime.agents import model_problems, profile_problems
from miniroom.rooms.runtime.live_config import LiveConfig
from miniroom.rooms.runtime.metrics import RoomMetrics
from miniroom.rooms.transport import RoomTransport
from miniroom.tools import make_non_dumpable
from miniroom.web import ensure_fetch_file

if TYPE_CHECKING:
    from miniroom.server.probes import Readiness
    from miniroom.server.project import Project

log = logging.getLogger(__name__)
# A stopping web server finishes its requests within its grace (2 s), then cuts open event streams; a
# stopping runtime ends its turns. Past this, what still runs is cancelled.
WEB_STOP_SECONDS = 10.0


@dataclass
class Backend:
    """A transport, plus the servers and clean-up that come with it (the web chat, the agents' API)."""

    transport: RoomTransport
    listeners: list[Listener] = field(default_factory=list)
    close: Callable[[], None] = lambda: None
    project: Project | None = None  # what the web settings edit, told of the runtime once it runs
    before_apply: Callable[[RoomsConfig], None] = lambda config: None  # what a new config.yaml changes here
    # Given the runtime once it exists: the web chat's OpenAI-compatible door runs turns with its agents.
    runtime_ready: Callable[[RoomRuntime], None] = lambda runtime: None
    readiness: Readiness | None = None  # what /readyz asks, told of the runtime once it exists


@dataclass(frozen=True)
class WebOptions:
    """Where the web chat (or, on Matrix, the agents' API) listens; `insecure` serves other machines without
    MINIROOM_API_TOKEN; `api` serves agents' shells `miniroom-agent`."""

    host: str
    port: int
    insecure: bool = False
    api: bool = True


def hosted_names(argument: str | None, config: RoomsConfig) -> frozenset[str] | None:
    """The agents and teams `--agents` names (None: every one); raises naming what config.yaml lacks."""
    if argument is None:
        return None
    names = [name.strip() for name in argument.split(",") if name.strip()]
    known = [*config.agents, *config.teams]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        listed = ", ".join(known) or "none"
        raise UserError(
            f"--agents {argument}: {', '.join(unknown) or 'no name given'} is not an agent or team of "
            f"config.yaml (these are: {listed}); give their names separated by commas, e.g. --agents a,b"
        )
    return frozenset(names)


@dataclass(frozen=True)
class ServePaths:
    """config.yaml, its folder (whose `.miniroom/` holds the agents' settings) and the data folder."""

    config: Path
    project_dir: Path
    data_dir: Path
    hosted: frozenset[str] | None = None  # --agents: the agents and teams this instance answers as


def is_loopback_host(host: str) -> bool:
    """Whether only this machine can reach `host`; a name other than localhost may resolve to anything."""
    if host.casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_problem(web: WebOptions, token_variable: str, env: Mapping[str, str]) -> str | None:
    """Why the web chat must not start: other machines could reach it, with no token and no --insecure."""
    if is_locked(env) or web.insecure or is_loopback_host(web.host):
        return None
    return (
        f"--host {web.host} can be reached from other machines, but {token_variable} is not set, so anyone "
        f"there could use the agents and their tools. Set {token_variable} to a secret (clients then send "
        "Authorization: Bearer <token>), or pass --insecure to serve without one."
    )


def warn_if_open(web: WebOptions, token_variable: str, env: Mapping[str, str]) -> None:
    if web.insecure and not is_locked(env) and not is_loopback_host(web.host):
        log.warning(
            "INSECURE (--insecure): the web chat and its API on %s:%d take requests from anyone who can "
            "reach this address, with no token, and can make the agents run commands; set %s instead",
            web.host,
            web.port,
            token_variable,
        )


def create_backend(
    live: LiveConfig,
    paths: ServePaths,
    web: WebOptions,
    env: Mapping[str, str],
    cli: AgentCli | None,
    metrics: RoomMetrics,
) -> Backend:
    """Matrix when config.yaml has a `matrix:` section, else embedded rooms; each imported only when used.
    `live` is the holder of config.yaml in force, which the runtime and the web pages share."""
    config = live.current
    extra = [gateway] if cli is not None and (gateway := gateway_listener(cli, env, web.host)) else []
    if config.matrix is not None:
        from miniroom.server.probes import Readiness
        from miniroom.transports.matrix import MatrixTransport

        matrix = MatrixTransport(config.matrix, paths.data_dir, room_names=room_names(config))
        probes = (metrics, Readiness([matrix.connection_problem]))
        api = (
            [api_listener(cli, web.host, web.port, what="agent API", option="--port", probes=probes)]
            if cli
            else []
        )
        return Backend(
            matrix,
            [*api, *extra],
            readiness=probes[1],
            before_apply=lambda changed: matrix.name_rooms(room_names(changed)),
        )
    from miniroom.server import DEFAULT_HOSTS, build_server, create_app
    from miniroom.server.openai_turns import ClientTurns
    from miniroom.server.probes import Readiness
    from miniroom.server.project import Project
    from miniroom.server.settings_files import ProjectFiles
    from miniroom.transports.embedded.store import RoomStore
    from miniroom.transports.embedded.transport import EmbeddedTransport

    host, port = web.host, web.port
    listening = listen(host, port)
    store = RoomStore.open(paths.data_dir)
    files = ProjectFiles(paths.project_dir, paths.config)
    project = Project(files, paths.data_dir, env, live)
    readiness = Readiness()
    app = create_app(
        store,
        allowed_hosts=(*DEFAULT_HOSTS, host),
        insecure=web.insecure,
        agent_cli=cli,
        project=project,
        metrics=metrics,
        readiness=readiness,
    )
    url = web_url(host, port)
    chat = Listener(build_server(app, host=host, port=port), listening, f"miniroom: web chat at {url}")

    def close() -> None:
        listening.close()
        store.close()

    def ready(runtime: RoomRuntime) -> None:
        app.state.client_turns = ClientTurns(runtime.factory)

    transport = EmbeddedTransport(store, room_names=room_names(config))
    return Backend(
        transport,
        [chat, *extra],
        close,
        project,
        readiness=readiness,
        runtime_ready=ready,
        before_apply=lambda changed: transport.name_rooms(room_names(changed)),
    )


def room_names(config: RoomsConfig) -> dict[str, str]:
    """The name each room shows, by key, where config.yaml gives one."""
    return {key: room.display_name for key, room in config.rooms.items() if room.display_name}


def web_url(host: str, port: int) -> str:
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def instance_address(config: RoomsConfig, web: WebOptions) -> str:
    """How the lock file names this instance: where it listens, and on Matrix its homeserver."""
    if config.matrix is None:
        return f"web chat {web_url(web.host, web.port)}"
    api = f"agent API {web_url(web.host, web.port)}, " if web.api else ""
    return f"{api}homeserver {config.matrix.homeserver}"


async def run_backend(runtime: RoomRuntime, backend: Backend) -> None:
    """Serve until SIGINT, SIGTERM or SIGHUP, or until the transport or web server ends; then stop both."""
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, *STOP_SIGNALS):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stopping.set)
    tasks = [asyncio.create_task(runtime.serve(), name="room runtime")]
    for listener in backend.listeners:
        tasks.append(asyncio.create_task(listener.server.serve(sockets=[listener.socket]), name="web server"))
        if listener.announce:
            print(listener.announce, flush=True)
    waiting = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait([*tasks, waiting], return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiting.cancel()
        await _stop_in_order(runtime, backend, tasks[0], tasks[1:])


async def _stop_in_order(
    runtime: RoomRuntime, backend: Backend, serving: asyncio.Task[None], web: list[asyncio.Task[None]]
) -> None:
    """The web servers first, each finishing the requests under way, then the runtime and its turns: the
    store closes after this with nothing still using it (no request or turn cut off mid-write)."""
    for listener in backend.listeners:
        listener.server.should_exit = True
    if web:
        await asyncio.wait(web, timeout=WEB_STOP_SECONDS)
    await runtime.stop()
    await asyncio.wait([serving], timeout=WEB_STOP_SECONDS)
    for task in [serving, *web]:
        task.cancel()
    await asyncio.gather(serving, *web, return_exceptions=True)


async def serve(config: RoomsConfig, paths: ServePaths, web: WebOptions, env: Mapping[str, str]) -> None:
    data_dir = paths.data_dir
    for problem in model_problems(config, env):
        log.warning(problem)
    exposed = not is_loopback_host(web.host)
    cli = (
        agent_cli(env, data_dir, web.host, web.port, insecure=web.insecure, exposed=exposed)
        if web.api
        else None
    )
    metrics = RoomMetrics()
    live = LiveConfig(config)
    backend = create_backend(live, paths, web, env, cli, metrics)
    try:
        runtime = RoomRuntime(
            live,
            backend.transport,
            data_dir,
            env=env,
            project_dir=paths.project_dir,
            cli=cli,
            hosted=paths.hosted,
            metrics=metrics,
        )
        if backend.readiness is not None:
            backend.readiness.checks.append(runtime.not_ready)

        async def apply(changed: RoomsConfig) -> str:
            backend.before_apply(changed)
            return await runtime.apply_config(changed)

        project = backend.project
        if project is not None:  # config.yaml saved from the web settings applies at once
            project.on_config = apply
        backend.runtime_ready(runtime)
        await runtime.start()
        watching = asyncio.create_task(
            watch_config(
                paths.config,
                lambda: live.current,
                project.apply if project is not None else apply,
            ),
            name="config.yaml watch",
        )
        hosted = ", ".join(sorted(paths.hosted)) if paths.hosted is not None else "all"
        log.info(
            "Serving %d agent(s) in %d room(s); data in %s; hosting %s",
            len(config.agents),
            len(config.rooms),
            data_dir,
            hosted,
        )
        try:
            await run_backend(runtime, backend)
        finally:
            watching.cancel()
    finally:
        backend.close()
        if cli is not None:
            cli.store.close()


def serve_command(args: argparse.Namespace) -> int:
    make_non_dumpable()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    env = os.environ
    path = config_path(args.config, env)
    if not path.exists():
        return fail(missing_config(path))
    config = load_checked_config(path)
    profile_errors, profile_warnings = profile_problems(config, env, path.resolve().parent)
    if profile_errors:
        return fail("\n".join(profile_errors))
    for warning in profile_warnings:
        log.warning(warning)
    web = WebOptions(args.host, args.port, args.insecure, api=not args.no_api)
    if config.matrix is None:  # embedded rooms: the web chat listens on --host
        from miniroom.config.secret_variables import API_TOKEN_VARIABLE

        problem = exposure_problem(web, API_TOKEN_VARIABLE, env)
        if problem is not None:
            return fail(problem)
        warn_if_open(web, API_TOKEN_VARIABLE, env)
    try:
        hosted = hosted_names(args.agents, config)
    except UserError as error:
        return fail(str(error))
    paths = ServePaths(path, path.resolve().parent, data_dir_for(path, env), hosted)
    ensure_fetch_file(paths.project_dir)
    try:
        paths.data_dir.mkdir(parents=True, exist_ok=True)
        with only_instance(paths.data_dir, instance_address(config, web)):  # before any port is bound
            asyncio.run(serve(config, paths, web, env))
    except KeyboardInterrupt:
        return 130
    except (
        Exception
    ) as error:  # the transport's own errors (sign-in, homeserver, port in use) say what to fix
        log.debug("serve failed", exc_info=True)
        return fail(str(error) or type(error).__name__, code=1)
    return 0
