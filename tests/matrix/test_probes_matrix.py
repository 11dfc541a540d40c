"""`miniroom serve` on a real Synapse answers the probes and `/metrics` on its agent API's port: ready once
the homeserver is followed, the turn a person started counted, `/metrics` only with the API token."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.matrix.conftest import MakeHuman, unique
from tests.matrix.runtime_support import eventually, write_config
from tests.matrix.synapse_server import Synapse
from tests.runtime.serve_process import ServeProcess

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

TOKEN = "matrix-probe-token-0123456789"


async def turns_done(client: httpx.AsyncClient, agent: str) -> float:
    response = await client.get("metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200, response.text
    families = {family.name: family for family in text_string_to_metric_families(response.text)}
    return sum(
        sample.value
        for sample in families["miniroom_turns"].samples
        if sample.labels == {"agent": agent, "outcome": "done"}
    )


async def test_serve_on_matrix_answers_the_probes_and_counts_a_turn(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    agent, alias = unique("helper"), unique("proberoom")
    provider.script(Reply(text="Hello."))
    config = write_config(tmp_path, synapse, provider, {agent: "Helper"}, {alias: [agent]})
    env = {**clean_env(tmp_path / "mini"), "MINIROOM_API_TOKEN": TOKEN}
    serve = ServeProcess(config, env, tmp_path / "serve.log", web=False)
    try:
        serve.start()
        async with httpx.AsyncClient(base_url=serve.base) as client:
            assert (await client.get("healthz")).text == "ok\n"
            ready = await client.get("readyz")
            assert (ready.status_code, ready.text) == (200, "ready\n")
            assert (await client.get("metrics")).status_code == 401
            alice = human("alice")
            room = await alice.join(f"#{alias}:{synapse.server_name}")
            await alice.send(room, "hello")

            async def counted() -> bool:
                return await turns_done(client, agent) == 1

            await eventually(counted, "the turn to be counted in /metrics")
    finally:
        serve.kill()
