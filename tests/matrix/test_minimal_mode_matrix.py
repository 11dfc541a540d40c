"""`!mode` on a real Synapse, through `miniroom serve` as a process: the choice is kept across a restart, and
the agent's minimal turn runs `miniroom-agent` against the API serve offers beside its Matrix transport."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.matrix.conftest import MakeHuman, unique
from tests.matrix.humans import Event, Human
from tests.matrix.runtime_support import eventually, messages_by, relations, write_config
from tests.matrix.synapse_server import Synapse
from tests.minimal.support import bash, tool_output
from tests.runtime.serve_process import TURN_KEY, ServeProcess

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses


async def complete_texts(human: Human, room: str, events: list[Event], count: int) -> list[str] | None:
    """What a client shows for the first `count` of `events`, once there are that many, each complete."""
    if len(events) < count:
        return None
    texts = []
    for event in events[:count]:
        edits = await relations(human, room, event["event_id"], "m.replace")
        content: dict[str, Any] = edits[-1]["content"]["m.new_content"] if edits else event["content"]
        if content.get(TURN_KEY, {}).get("state", "done") not in ("done", "failed"):
            return None
        texts.append(str(content["body"]))
    return texts


async def finished_replies(human: Human, room: str, root: str, agent_id: str, count: int) -> list[str]:
    """The agent's first `count` messages in the thread, once each is complete."""

    async def check() -> list[str] | None:
        in_thread = messages_by(await relations(human, room, root, "m.thread"), agent_id)
        return await complete_texts(human, room, in_thread, count)

    return await eventually(check, f"{count} finished replies of {agent_id} in the thread")


async def test_mode_minimal_survives_a_restart_and_the_turn_reaches_the_cli(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    agent, alias = unique("helper"), unique("moderoom")
    provider.script(
        Reply(text="Hello."),
        bash("miniroom-agent tools call files ls '{}' > /dev/null; echo rc=$?"),
        Reply(text="Listed."),
        Reply(text="Standard again."),
    )
    config = write_config(tmp_path, synapse, provider, {agent: "Helper"}, {alias: [agent]})
    serve = ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log", web=False)
    agent_id = f"@miniroom_{agent}:{synapse.server_name}"
    try:
        serve.start()
        alice = human("alice")
        room = await alice.join(f"#{alias}:{synapse.server_name}")
        root = await alice.send(room, "hello")
        await finished_replies(alice, room, root, agent_id, 1)
        await alice.reply_in_thread(room, root, f"!mode {agent} minimal")
        [_, saved] = await finished_replies(alice, room, root, agent_id, 2)
        assert saved.startswith(f"{agent} answers in minimal mode in this thread")
        assert serve.stop() == 0
        serve.start()
        await alice.reply_in_thread(room, root, f"!mode {agent} show")
        await alice.reply_in_thread(room, root, "list your tools")
        replies = await finished_replies(alice, room, root, agent_id, 4)
        assert replies[2].startswith(f"{agent} answers in minimal mode in this thread")
        # The CLI call shows as a tool-trace entry of its own, after the Bash line that made it.
        bash_line, cli_line, text = replies[3].split("\n", 2)
        assert bash_line.startswith("🔧 Bash miniroom-agent tools call files ls")
        assert cli_line.startswith("🔧 ")
        assert cli_line.endswith("(miniroom-agent)")
        assert text.strip() == "Listed."
        await alice.reply_in_thread(room, root, f"!mode {agent} reset")
        await alice.reply_in_thread(room, root, "and now?")
        replies = await finished_replies(alice, room, root, agent_id, 6)
        assert replies[4] == f"{agent} answers in standard mode in this thread."
        assert replies[5] == "Standard again."
    finally:
        serve.kill()
    standard, minimal, after_bash, standard_again = (request.body for request in provider.requests)
    assert [tool["name"] for tool in minimal["tools"]] == ["bash"]
    assert "rc=0" in tool_output(after_bash)
    assert len(standard["tools"]) == len(standard_again["tools"]) > 1
    stored = json.loads((tmp_path / "miniroom_data" / "tracking" / "agent_modes.json").read_text())
    assert stored == {agent: {}}


async def test_mode_in_room_mode_applies_to_the_whole_room_even_from_a_thread(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    agent, alias = unique("helper"), unique("roommode")
    provider.script(Reply(text="Standard first."), Reply(text="Room-wide minimal."))
    config = write_config(tmp_path, synapse, provider, {agent: "Helper"}, {alias: [agent]})
    data = yaml.safe_load(config.read_text())
    data["agents"][agent]["thread_mode"] = "room"
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    serve = ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log", web=False)
    agent_id = f"@miniroom_{agent}:{synapse.server_name}"

    async def finished(count: int) -> list[str]:
        async def check() -> list[str] | None:
            return await complete_texts(alice, room, messages_by(await alice.messages(room), agent_id), count)

        return await eventually(check, f"{count} finished messages of {agent_id}")

    try:
        serve.start()
        alice = human("alice")
        room = await alice.join(f"#{alias}:{synapse.server_name}")
        root = await alice.send(room, "hello")
        await finished(1)
        await alice.reply_in_thread(room, root, f"!mode {agent} minimal")
        notice = (await finished(2))[1]
        assert notice.startswith(f"{agent} answers in minimal mode in this room")
        await alice.send(room, "at room level now")
        await finished(3)
    finally:
        serve.kill()
    standard, minimal = (request.body for request in provider.requests)
    assert len(standard["tools"]) > 1
    assert [tool["name"] for tool in minimal["tools"]] == ["bash"]
