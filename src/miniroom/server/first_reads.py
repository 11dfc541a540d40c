"""The chat's first reads, carried in its page: the rooms and the newest events of the room it opens, as the
API answers them, so the page draws its room without first asking the server again."""

from __future__ import annotations

import json
from typing import Any

from miniroom.server.api import events_answer, rooms_answer
from miniroom.transports.embedded import PageQuery, RoomStore

# The page app.js reads first for a room (its PAGE_SIZE): the newest events, edits and reactions bundled.
FIRST_PAGE = PageQuery(limit=200, bundled=True)
ELEMENT_ID = "first-reads"
# In a script element only `</script` (or `<!--`) ends or changes its text; JSON may write any character
# as \uXXXX, so none of these can appear in the block as themselves.
_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))


async def first_reads(store: RoomStore, wanted: str | None) -> dict[str, Any]:
    """{rooms: the answer of GET /api/rooms, page: the first page of the room app.js opens, or null}."""
    rooms = await rooms_answer(store)
    shown = opened_room(rooms["rooms"], wanted)
    page = await events_answer(store, shown["room_id"], FIRST_PAGE) if shown else None
    return {"rooms": rooms, "page": page}


def opened_room(rooms: list[dict[str, Any]], wanted: str | None) -> dict[str, Any] | None:
    """The room app.js opens: the one the address names by key or id, else the only one there is."""
    named = next((room for room in rooms if wanted in (room["key"], room["room_id"])), None)
    return named or (rooms[0] if len(rooms) == 1 else None)


def data_block(data: Any) -> str:
    """`data` as a JSON data block (never run: the CSP allows no inline script) that no text in it can end."""
    text = json.dumps(data, separators=(",", ":"))  # ASCII only: a lone surrogate in a body stays \\udXXX
    for char, escaped in _ESCAPES:
        text = text.replace(char, escaped)
    return f'<script type="application/json" id="{ELEMENT_ID}">{text}</script>'
