"""Typing on a real Synapse: an agent shows as typing while the model has not answered, and no longer once
the turn is cut short by a stop or its reply is posted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.matrix.conftest import MakeHuman
from tests.matrix.humans import Human
from tests.matrix.runtime_support import (
    agent_names,
    eventually,
    matrix_runtime,
    messages_by,
    room_events,
    room_with_agents,
)
from tests.matrix.synapse_server import Synapse


class Typists:
    """Who types in a room, as a client learns it: its first /sync, then each /sync since the one before
    (Synapse keeps answering a repeated first /sync from a cache)."""

    def __init__(self, human: Human, room_id: str) -> None:
        self.human, self.room_id = human, room_id
        self.since: str | None = None
        self.user_ids: list[str] = []
        quiet: dict[str, Any] = {"types": []}
        room = {"rooms": [room_id], "timeline": {"limit": 0}, "state": quiet, "account_data": quiet}
        room["ephemeral"] = {"types": ["m.typing"]}
        self.filter = json.dumps({"presence": quiet, "account_data": quiet, "room": room})

    async def now(self) -> list[str]:
        since = {"since": self.since} if self.since is not None else {}
        sync = await self.human.request("GET", "v3/sync", filter=self.filter, timeout="0", **since)
        self.since = sync["next_batch"]
        joined = sync.get("rooms", {}).get("join", {}).get(self.room_id, {})
        for event in joined.get("ephemeral", {}).get("events", []):
            if event["type"] == "m.typing":  # each tells the room's typists as they are now
                self.user_ids = list(event["content"]["user_ids"])
        return self.user_ids


async def test_the_agent_types_while_the_model_holds_its_first_byte_and_stops_at_a_stop_and_a_reply(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="never sent", silent=True), Reply(text="Here at last."))
    agents = agent_names("thinker")
    [agent] = list(agents)
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        agent_id = served.user_id(agent)
        room = await room_with_agents(alice, served, [])
        await alice.send(room, f"{agents[agent]}: a question", mentions=[agent_id])

        typists = Typists(alice, room)

        async def typing() -> bool:
            return bool(provider.requests) and agent_id in await typists.now()

        await eventually(typing, "the agent typing while its model request waits")
        assert messages_by(await room_events(alice, room), agent_id) == []

        async def not_typing() -> bool:
            return agent_id not in await typists.now()

        await served.stop()  # the turn is cut short with nothing posted: the notice is withdrawn
        # well before it would lapse by itself (30 s)
        await eventually(not_typing, "typing to end at the stop", within=10.0)

        await served.start()  # the question is answered after the restart

        async def answered() -> bool:
            return bool(messages_by(await room_events(alice, room), agent_id))

        await eventually(answered, "the agent's reply")
        await eventually(not_typing, "typing to end once the reply is posted", within=10.0)
