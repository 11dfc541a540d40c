"""A room runtime under test, on any transport: start it, stop it, restart it on the same data folder."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miniroom.agent.config_yaml_check import load_config
from miniroom.config.config_yaml import RoomsConfig
from miniroom.rooms.runtime import RoomRuntime
from miniroom.rooms.transport import RoomTransport
from miniroom.testing.scripted_provider import ScriptedProvider

EDIT_INTERVAL = 0.02


def scripted_model(provider: ScriptedProvider) -> dict[str, Any]:
    """The config.yaml `models:` entry of a model served by the scripted provider, set by model variables."""
    variables = [
        f"MINI_BASE_URL={provider.url}",
        "MINI_API=anthropic-messages",
        "MINI_API_KEY=sk-test",
        "MINI_PROFILE_DISABLED_TOOLS=load_skill",
    ]
    return {"model": "scripted/test-model", "variables": variables}


@dataclass
class RuntimeHarness:
    """One runtime serving a transport made anew by `make_transport` at every start."""

    config_path: Path
    data_dir: Path
    env: dict[str, str]
    runtime: RoomRuntime | None = None
    task: asyncio.Task[None] | None = None
    options: dict[str, Any] = field(default_factory=dict)  # more keyword arguments for RoomRuntime

    def make_transport(self, config: RoomsConfig) -> RoomTransport:
        raise NotImplementedError

    def started(self, transport: RoomTransport) -> None:
        """Called once the runtime has started (e.g. to look up room ids)."""

    async def start(self) -> None:
        config = load_config(self.config_path)
        transport = self.make_transport(config)
        runtime = RoomRuntime(
            config, transport, self.data_dir, env=self.env, edit_interval=EDIT_INTERVAL, **self.options
        )
        await runtime.start()
        self.started(transport)
        self.runtime, self.task = runtime, asyncio.create_task(runtime.serve())

    async def stop(self) -> None:
        if self.runtime is not None and self.task is not None:
            await self.runtime.stop()
            # A transport ends `events()` at its next poll; the tests need not wait for it.
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        self.runtime = self.task = None

    async def restart(self) -> None:
        await self.stop()
        await self.start()
