"""Several agents: the router picks one for an untagged message; a trailing mention hands off."""

from __future__ import annotations

from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
CODER = "@coder:miniroom.local"
AGENTS = {
    "helper": agent_entry("Helper", "general questions"),
    "coder": agent_entry("Coder", "writes and fixes code"),
}


async def test_the_router_picks_one_of_two_agents(tmp_path: Path, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="coder"), Reply(text="Here is the fix."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("my build fails with a syntax error")
        await rooms.settle()
        assert rooms.agent_messages(HELPER) == []
        [reply] = rooms.agent_messages(CODER)
        assert rooms.shown_text(reply["event_id"]) == "Here is the fix."
        routing = str(provider.requests[0].body["messages"])
        assert "helper (Helper): general questions" in routing
        assert "coder (Coder): writes and fixes code" in routing
        assert "my build fails with a syntax error" in routing


async def test_an_unusable_router_answer_falls_back_to_the_first_candidate(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="nobody in particular"), Reply(text="I can help."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("hi all")
        await rooms.settle()
        assert rooms.agent_messages(CODER) == []
        [reply] = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]) == "I can help."


async def test_a_reply_ending_with_an_agent_mention_hands_off_once(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="That is code, ask @coder"), Reply(text="Fixed it."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        root = rooms.post("@helper my build fails")
        await rooms.settle()
        [first] = rooms.agent_messages(HELPER)
        [second] = rooms.agent_messages(CODER)
        assert second["content"]["m.relates_to"]["event_id"] == root
        assert second["content"]["m.relates_to"]["m.in_reply_to"] == {"event_id": first["event_id"]}
        assert rooms.shown_text(second["event_id"]) == "Fixed it."
        final_edit = rooms.edits_of(first["event_id"])[-1]["content"]
        assert final_edit["m.new_content"]["m.mentions"] == {"user_ids": [CODER]}
        last = provider.requests[-1].body["messages"][-1]["content"]
        assert "Helper: That is code, ask @coder" in str(last)
        assert len(provider.requests) == 2
