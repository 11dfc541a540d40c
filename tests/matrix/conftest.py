"""A Synapse homeserver for the whole session, humans on it, and Matrix transports that stop after a test."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from miniroom.config.config_yaml import MatrixConfig
from miniroom.transports.matrix import MatrixTransport
from tests.matrix.humans import Human
from tests.matrix.synapse_server import Synapse

ROUTER_PASSWORD = "router-test-password"
_names = itertools.count()

MakeHuman = Callable[[str], Human]
MakeTransport = Callable[..., Awaitable[MatrixTransport]]


def unique(prefix: str) -> str:
    """A name no other test of this session uses (accounts live as long as the server)."""
    return f"{prefix}{next(_names)}"


@pytest.fixture(scope="session")
def synapse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synapse]:
    with Synapse.start(tmp_path_factory.mktemp("synapse")) as server:
        yield server


@pytest.fixture
def human(synapse: Synapse) -> MakeHuman:
    """`human("alice")`: a fresh account (the name gets a unique suffix)."""

    def register(name: str) -> Human:
        user_id, token = synapse.register(unique(name))
        return Human(synapse.url, user_id, token)

    return register


@pytest.fixture(autouse=True)
def _router_password(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every test's transport signs in the same router account; the first registers it, the others log in.
    monkeypatch.setenv("MINIROOM_MATRIX_PASSWORD_ROUTER", ROUTER_PASSWORD)
    monkeypatch.delenv("MINIROOM_MATRIX_PASSWORD", raising=False)


@pytest.fixture
async def transports(synapse: Synapse, tmp_path: Path) -> AsyncIterator[MakeTransport]:
    """`await transports(agents, rooms, **options)`: a started transport, stopped after the test."""
    started: list[MatrixTransport] = []

    async def start(
        agents: dict[str, str],
        rooms: dict[str, str | None] | None = None,
        *,
        data_dir: Path | None = None,
        invite_from: list[str] | None = None,
        registration: str = "auto",
        timeline_limit: int = 50,
        room_agents: dict[str, list[str]] | None = None,
        lease_seconds: int = 60,
        room_names: dict[str, str] | None = None,
    ) -> MatrixTransport:
        config = MatrixConfig.model_validate(
            {
                "homeserver": synapse.url,
                "server_name": synapse.server_name,
                "invite_from": invite_from or [],
                "registration": registration,
                "lease_seconds": lease_seconds,
            }
        )
        transport = MatrixTransport(
            config,
            data_dir or tmp_path / "data",
            timeline_limit=timeline_limit,
            poll_seconds=1.0,
            room_names=room_names,
        )
        started.append(transport)
        await transport.start(agents, rooms or {}, room_agents)
        return transport

    yield start
    for transport in started:
        await transport.stop()
