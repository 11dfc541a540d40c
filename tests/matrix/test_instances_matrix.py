"""Several `miniroom serve` instances on one Synapse, each with its own data folder and its own agents
(`--agents`): every message is answered once, by the right agent; an agent another live instance hosts is
refused, naming that instance; after a kill -9 its lease runs out and another instance hosts the agent."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import MINIROOM, clean_env
from tests.matrix.conftest import MakeHuman, unique
from tests.matrix.runtime_support import eventually, replies_to
from tests.matrix.synapse_server import Synapse
from tests.runtime.harness import scripted_model
from tests.runtime.serve_process import ServeProcess, free_port

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

LEASE_SECONDS = 10  # the shortest allowed: a killed instance's agents are free again after it
PASSWORD = "shared-agent-password"


def write_config(
    folder: Path, synapse: Synapse, provider: ScriptedProvider, agents: dict[str, str], alias: str
) -> Path:
    """The same config.yaml in its own folder (so its own data folder) for each instance."""
    folder.mkdir()
    entries = {
        name: {"display_name": shown, "model": "test", "rooms": ["lobby"]} for name, shown in agents.items()
    }
    config = {
        "models": {"test": scripted_model(provider)},
        "agents": entries,
        "rooms": {"lobby": {"alias": alias}},
        "matrix": {
            "homeserver": synapse.url,
            "server_name": synapse.server_name,
            "lease_seconds": LEASE_SECONDS,
        },
    }
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def refused_start(config: Path, env: dict[str, str], agent: str) -> subprocess.CompletedProcess[str]:
    command = [MINIROOM, "serve", "--config", str(config), "--port", str(free_port()), "--agents", agent]
    return subprocess.run(command, cwd=config.parent, env=env, capture_output=True, text=True, timeout=60)


async def test_two_instances_share_the_homeserver_and_a_killed_ones_agent_moves(
    tmp_path: Path,
    synapse: Synapse,
    provider: ScriptedProvider,
    human: MakeHuman,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alias = unique("shared")
    monkeypatch.setenv("MINIROOM_MATRIX_PASSWORD", PASSWORD)  # any instance may sign any agent in
    provider.script(*(Reply(text=f"answer {number}") for number in range(1, 5)))
    sage, helper = unique("sage"), unique("helper")
    agents = {sage: "Sage", helper: "Helper"}
    configs = [write_config(tmp_path / name, synapse, provider, agents, alias) for name in ("a", "b", "c")]
    envs = [clean_env(tmp_path / f"mini-{name}") for name in ("a", "b", "c")]
    first = ServeProcess(configs[0], envs[0], tmp_path / "a.log", web=False, args=("--agents", sage))
    second = ServeProcess(configs[1], envs[1], tmp_path / "b.log", web=False, args=("--agents", helper))
    third = ServeProcess(configs[2], envs[2], tmp_path / "c.log", web=False, args=("--agents", sage))
    sage_id, helper_id = (f"@miniroom_{name}:{synapse.server_name}" for name in (sage, helper))
    try:
        first.start()
        second.start()
        alice = human("alice")
        room = await alice.join(f"#{alias}:{synapse.server_name}")
        untagged = await alice.send(room, "hello, anyone?")
        for_helper = await alice.send(room, "Helper, are you there?", mentions=[helper_id])
        await eventually(lambda: replies_to(alice, room, for_helper, helper_id), "helper's answer")
        await eventually(lambda: replies_to(alice, room, untagged, sage_id), "one answer to the untagged")
        assert not await replies_to(alice, room, untagged, helper_id), "the first candidate alone answers"
        assert len(await replies_to(alice, room, for_helper, helper_id)) == 1
        assert not await replies_to(alice, room, for_helper, sage_id)

        refused = await asyncio.to_thread(refused_start, configs[2], envs[2], sage)
        assert refused.returncode == 1, refused.stderr
        assert f"Agent {sage} ({sage_id}) is hosted by another miniroom instance" in refused.stderr
        assert f"PID {first.process.pid if first.process else 0}" in refused.stderr
        assert str((tmp_path / "a" / "miniroom_data").resolve()) in refused.stderr

        first.kill()  # a crash: its lease is never given back, and runs out after LEASE_SECONDS
        deadline = time.monotonic() + 6 * LEASE_SECONDS
        while not await asyncio.to_thread(third.try_start):
            assert third.output().count("is hosted by another miniroom instance") >= 1, third.output()
            assert time.monotonic() < deadline, f"the lease never ran out:\n{third.output()}"
        again = await alice.send(room, "Sage, still with us?", mentions=[sage_id])
        [answer] = await eventually(lambda: replies_to(alice, room, again, sage_id), "sage, from the third")
        assert answer["sender"] == sage_id
        assert not await replies_to(alice, room, again, helper_id)
    finally:
        for served in (first, second, third):
            served.kill()
