"""An instance that hosts some of the configured agents (`serve --agents`): it answers as those alone, and
decides like the instances hosting the others, so every message is answered once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import agent_entry, prompt_of, running_rooms

AGENTS = {"helper": agent_entry("Helper", "general help"), "coder": agent_entry("Coder", "writes code")}
CODER, HELPER = "@coder:miniroom.local", "@helper:miniroom.local"


async def test_an_untagged_message_goes_to_the_first_candidate_without_asking_the_router(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Coder here."))
    hosting_coder = {"hosted": {"coder"}}
    async with running_rooms(tmp_path, provider, AGENTS, runtime_options=hosting_coder) as rooms:
        assert rooms.members("lobby") == {"@you:miniroom.local", CODER}, "helper is not signed in here"
        rooms.store.join(rooms.lobby, HELPER, "Helper")  # as the instance hosting it does
        rooms.post("can someone refactor the parser?")
        await rooms.settle()
        assert provider.requests == [], "helper, first in config.yaml, answers from the other instance"
        mentions: dict[str, Any] = {"m.mentions": {"user_ids": [CODER]}}
        rooms.post("Coder, can you?", **mentions)
        await rooms.settle()
        assert [rooms.shown_text(reply["event_id"]) for reply in rooms.agent_messages(CODER)] == [
            "Coder here."
        ]
        assert not rooms.agent_messages(HELPER)
    [request] = provider.requests
    assert prompt_of(request).endswith("You: Coder, can you?")
