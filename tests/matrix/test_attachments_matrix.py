"""On a real Synapse, files people post reach the agent through the authenticated media API (Synapse serves
new media only there): a CSV posted in a thread is saved in the agent's working folder and read from it, and
the file the agent writes comes back as an m.file people download."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from miniroom.rooms.attachments import conversation_folder
from miniroom.rooms.transport import MediaError, MediaTooLarge
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.matrix.conftest import MakeHuman, MakeTransport, unique
from tests.matrix.humans import Event, Human
from tests.matrix.runtime_support import (
    agent_names,
    eventually,
    matrix_runtime,
    messages_by,
    relations,
    room_with_agents,
)
from tests.matrix.synapse_server import Synapse
from tests.runtime.support import prompt_of

CSV = b"city,visits\nOslo,3\nLima,5\n"
TOP = "city\nLima\n"


async def upload(human: Human, data: bytes, filename: str, mimetype: str) -> str:
    """The mxc:// URI of `data`, uploaded as Element does (POST /_matrix/media/v3/upload)."""
    async with httpx.AsyncClient(timeout=10) as client:
        reply = await client.post(
            f"{human.url}/_matrix/media/v3/upload",
            params={"filename": filename},
            content=data,
            headers={"Authorization": f"Bearer {human.token}", "Content-Type": mimetype},
        )
    reply.raise_for_status()
    return str(reply.json()["content_uri"])


async def download(human: Human, url: str) -> bytes:
    """What a client gets for `url` from the authenticated media API (client v1)."""
    server, media_id = url.removeprefix("mxc://").split("/")
    async with httpx.AsyncClient(timeout=10) as client:
        reply = await client.get(
            f"{human.url}/_matrix/client/v1/media/download/{server}/{media_id}",
            headers={"Authorization": f"Bearer {human.token}"},
        )
    reply.raise_for_status()
    return reply.content


def file_in_thread(root: str, filename: str, url: str, size: int, mimetype: str) -> dict[str, Any]:
    relation = {
        "rel_type": "m.thread",
        "event_id": root,
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": root},
    }
    return {
        "msgtype": "m.file",
        "body": filename,
        "filename": filename,
        "url": url,
        "info": {"mimetype": mimetype, "size": size},
        "m.relates_to": relation,
    }


async def test_a_csv_posted_on_synapse_is_read_by_the_agent_from_its_working_folder(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="Send the file over."))
    agents = agent_names("analyst")
    [analyst] = agents
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [])
        analyst_id = served.user_id(analyst)

        async def replies(count: int) -> list[Event] | None:
            found = messages_by(await relations(alice, room, root, "m.thread"), analyst_id)
            return found if len(found) >= count else None

        root = await alice.send(room, "I have the visits per city for you.")
        await eventually(lambda: replies(1), "the analyst's first answer")
        folder = conversation_folder(room, root)
        provider.script(
            Reply(tool_calls=[("read", {"path": f"{folder}/visits.csv"})]),
            Reply(tool_calls=[("write", {"path": "top.csv", "content": TOP})]),
            Reply(tool_calls=[("send_file", {"path": "top.csv"})]),
            Reply(text="Lima has the most visits; the top city is in top.csv."),
        )
        url = await upload(alice, CSV, "visits.csv", "text/csv")
        await alice.send_event(
            room, "m.room.message", file_in_thread(root, "visits.csv", url, len(CSV), "text/csv")
        )
        *_, handed = await eventually(lambda: replies(3), "the analyst's answer and its file")
        await served.idle()
        assert (handed["content"]["msgtype"], handed["content"]["body"]) == ("m.file", "top.csv")
        assert await download(alice, handed["content"]["url"]) == TOP.encode()
        saved = served.data_dir / "workspaces" / analyst / folder / "visits.csv"
        assert saved.read_bytes() == CSV
    name = alice.user_id.removeprefix("@").partition(":")[0]  # a new account's display name
    told = f"{name}: [file: visits.csv] (saved in your working folder as {folder}/visits.csv, 26 bytes)"
    assert prompt_of(provider.requests[1]) == told
    assert "Lima,5" in json.dumps(provider.requests[2].body["messages"][-1])
    assert "top.csv (10 bytes) will be posted after your reply." in json.dumps(provider.requests[4].body)


async def test_media_are_read_up_to_the_limit_and_unknown_ones_say_so(
    transports: MakeTransport, human: MakeHuman
) -> None:
    transport = await transports({unique("clerk"): "Clerk"})
    url = await upload(human("carol"), b"x" * 2048, "big.log", "text/plain")
    assert await transport.media(url, 4096) == b"x" * 2048
    with pytest.raises(MediaTooLarge):
        await transport.media(url, 1024)
    with pytest.raises(MediaError, match="HTTP 404"):
        await transport.media(url[:-3] + "zzz", 4096)
    with pytest.raises(MediaError, match="is not an mxc://server/media-id URI"):
        await transport.media("https://example.org/f", 4096)
