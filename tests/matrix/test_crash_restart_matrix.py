"""`miniroom serve` on a real Synapse, killed (SIGKILL) right after an agent posted a reply: one reply.

The reply is sent with a transaction id made from (message, agent, part), so the restarted runtime's send
of the same reply gets the same event back from the homeserver, even when the kill came before miniroom
wrote down the reply's id; the reply is then finished by edits in place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.matrix.conftest import MakeHuman, unique
from tests.matrix.humans import Event
from tests.matrix.runtime_support import eventually, messages_by, relations
from tests.matrix.synapse_server import Synapse
from tests.runtime.harness import scripted_model
from tests.runtime.serve_process import TURN_KEY, ServeProcess

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

CUT_OFF = Reply(text="The plan, step by step: " * 80, delay=0.5)  # about a minute: killed mid-stream
WHOLE = "The whole plan, at last."


def write_config(folder: Path, synapse: Synapse, provider: ScriptedProvider, agent: str, alias: str) -> Path:
    config = {
        "models": {"test": scripted_model(provider)},
        "agents": {agent: {"display_name": "Helper", "model": "test", "rooms": ["lobby"]}},
        "rooms": {"lobby": {"alias": alias}},
        "matrix": {"homeserver": synapse.url, "server_name": synapse.server_name},
    }
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def forget_the_reply_id(data_dir: Path) -> None:
    """Leave on disk what a kill just after the post, before the reply's id was written down, leaves."""
    path = data_dir / "tracking" / "in_flight.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    for by_agent in records.values():
        for record in by_agent.values():
            record["reply_id"] = None
    path.write_text(json.dumps(records), encoding="utf-8")


async def test_a_kill_right_after_the_reply_was_posted_leaves_one_reply_finished_in_place(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(CUT_OFF, Reply(text=WHOLE))
    agent, alias = unique("helper"), unique("crashroom")
    config = write_config(tmp_path, synapse, provider, agent, alias)
    serve = ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log", web=False)
    agent_id = f"@miniroom_{agent}:{synapse.server_name}"
    try:
        serve.start()
        alice = human("alice")
        room = await alice.join(f"#{alias}:{synapse.server_name}")
        question = await alice.send(room, "what is the plan?")

        async def replies() -> list[Event]:
            return messages_by(await relations(alice, room, question, "m.thread"), agent_id)

        [reply] = await eventually(replies, "the agent's first post")
        serve.kill()
        forget_the_reply_id(tmp_path / "miniroom_data")
        serve.start()

        async def finished() -> dict[str, Any] | None:
            edits = await relations(alice, room, reply["event_id"], "m.replace")
            shown = edits[-1]["content"]["m.new_content"] if edits else reply["content"]
            return shown if shown[TURN_KEY]["state"] == "done" else None

        shown = await eventually(finished, "the reply to be finished")
        assert shown["body"] == WHOLE
        ids = [event["event_id"] for event in await replies()]
        assert ids == [reply["event_id"]], "the restart posted a second reply"
        assert serve.stop() == 0
    finally:
        serve.kill()
