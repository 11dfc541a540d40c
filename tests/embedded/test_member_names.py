"""EmbeddedTransport.member_names: the room's joined members with their display names, from the store."""

from __future__ import annotations

from miniroom.transports.embedded import EmbeddedTransport, RoomStore

YOU = "@you:miniroom.local"
BOB = "@bob:miniroom.local"


async def test_member_names_lists_every_joined_member_with_its_display_name(store: RoomStore) -> None:
    transport = EmbeddedTransport(store)
    await transport.start({"helper": "Helper"}, {"lobby": None, "dev": None})
    lobby, dev = transport.room_id("lobby"), transport.room_id("dev")
    assert lobby is not None
    assert dev is not None
    store.join(lobby, BOB, "Robert")
    assert await transport.member_names(lobby) == {
        YOU: "You",
        "@helper:miniroom.local": "Helper",
        BOB: "Robert",
    }
    assert BOB not in await transport.member_names(dev), "a member of another room was listed"
