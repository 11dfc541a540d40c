"""`human_aliases:` in config.yaml: several accounts of one person count as one human in a thread."""

from __future__ import annotations

from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import HUMAN, agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
BRIDGED = "@you_tg:miniroom.local"  # the same person through a bridge


async def test_a_persons_other_account_does_not_make_a_second_human_in_the_thread(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Hi!"), Reply(text="Still here."))
    agents = {"helper": agent_entry("Helper")}
    aliases = {HUMAN: [BRIDGED]}
    async with running_rooms(tmp_path, provider, agents, human_aliases=aliases) as rooms:
        rooms.store.join(rooms.lobby, BRIDGED, "You (Telegram)")
        root = rooms.post("hello")
        await rooms.settle()
        rooms.post("one more thing, from my phone", sender=BRIDGED, thread=root)
        await rooms.settle()
        replies = [rooms.shown_text(event["event_id"]) for event in rooms.agent_messages(HELPER)]
        assert replies == ["Hi!", "Still here."]
