"""MatrixTransport.member_names against a real Synapse: the joined members with their display names."""

from __future__ import annotations

from urllib.parse import quote

from tests.matrix.conftest import MakeHuman, MakeTransport, unique


async def test_member_names_lists_the_joined_members_with_their_display_names(
    transports: MakeTransport, human: MakeHuman
) -> None:
    agent, key = unique("greeter"), unique("porch")
    transport = await transports({agent: "Greeter"}, {key: None})
    room_id = transport.room_id(key)
    assert room_id is not None
    alice, bob = human("alice"), human("bob")
    await alice.request("PUT", f"v3/profile/{quote(alice.user_id)}/displayname", {"displayname": "Alice L."})
    await alice.join(f"#{key}:miniroom.test")
    names = await transport.member_names(room_id)
    assert names[alice.user_id] == "Alice L."
    assert names[transport.agent_user_id(agent)] == "Greeter"
    assert set(names) == await transport.joined_members(room_id)
    assert bob.user_id not in names, "someone who never joined was listed"
