"""What people send: safe names (hostile ones included), the size cap, and saving that never leaves the
agent's working folder. The runtime's uploads run over a real embedded room store."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from miniroom.rooms.attachments import (
    MAX_NAME_BYTES,
    attachment_of,
    conversation_folder,
    safe_filename,
)
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.uploads import Uploads, save
from miniroom.transports.embedded import EmbeddedTransport, RoomStore
from tests.runtime.media_support import PNG

PERSON = "@you:miniroom.local"


@pytest.mark.parametrize(
    ("hostile", "safe"),
    [
        ("../../etc/passwd", "passwd"),
        ("..", "attachment"),
        (".", "attachment"),
        ("", "attachment"),
        ("/etc/shadow", "shadow"),
        ("..\\..\\windows\\win.ini", "win.ini"),
        (".bashrc", "bashrc"),
        ("report\0.csv", "report.csv"),
        ("a\nb\r\tc.txt", "a_b_c.txt"),
        ("$(rm -rf ~);`id`.sh", "rm_-rf_id.sh"),
        ("名前 with spaces.pdf", "名前_with_spaces.pdf"),
        ("ﬁle／name.txt", "name.txt"),  # NFKC: the full-width slash is a slash, so only the last part stays
        ("-rf", "-rf"),
    ],
)
def test_a_hostile_file_name_becomes_one_harmless_name(hostile: str, safe: str) -> None:
    assert safe_filename(hostile) == safe


def test_a_long_name_is_cut_but_keeps_its_extension() -> None:
    name = safe_filename("x" * 1000 + ".csv")
    assert name.endswith(".csv")
    assert len(name.encode()) == MAX_NAME_BYTES
    assert len(safe_filename("é" * 500).encode()) <= MAX_NAME_BYTES


def test_the_name_comes_from_filename_and_the_body_is_then_a_caption() -> None:
    content = {
        "msgtype": "m.image",
        "body": "look",
        "filename": "a.png",
        "url": "mxc://s/x",
        "info": {"size": 9},
    }
    attachment = attachment_of(content)
    assert attachment is not None
    assert (attachment.kind, attachment.name, attachment.caption, attachment.size) == (
        "image",
        "a.png",
        "look",
        9,
    )
    assert attachment_of({"msgtype": "m.text", "body": "hi"}) is None
    no_link = attachment_of({"msgtype": "m.file", "body": "f", "url": "https://elsewhere/f"})
    assert no_link is not None
    assert no_link.url is None


def test_a_name_taken_by_other_bytes_is_numbered_and_the_same_bytes_reuse_it(tmp_path: Path) -> None:
    assert save(tmp_path, "uploads/c", "a.csv", b"1") == "uploads/c/a.csv"
    assert save(tmp_path, "uploads/c", "a.csv", b"2") == "uploads/c/a-2.csv"
    assert save(tmp_path, "uploads/c", "a.csv", b"1") == "uploads/c/a.csv"
    assert (tmp_path / "uploads/c/a-2.csv").read_bytes() == b"2"


def test_an_uploads_folder_swapped_for_a_link_out_is_not_written_through(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "work", tmp_path / "outside"
    (workspace / "uploads").mkdir(parents=True)
    outside.mkdir()
    os.symlink(outside, workspace / "uploads" / "c")
    with pytest.raises(Exception, match="outside the working folder"):
        save(workspace, "uploads/c", "a.csv", b"secret")
    assert list(outside.iterdir()) == []


def files_under(folder: Path) -> list[Path]:
    """Every file under `folder` but the room database's."""
    return [path for path in folder.rglob("*") if path.is_file() and "data" not in path.parts]


@pytest.fixture
def transport(tmp_path: Path) -> Iterator[tuple[RoomStore, EmbeddedTransport]]:
    store = RoomStore.open(tmp_path / "data")
    yield store, EmbeddedTransport(store)
    store.close()


async def test_a_file_over_the_cap_is_not_saved_and_the_turn_says_why(
    tmp_path: Path, transport: tuple[RoomStore, EmbeddedTransport]
) -> None:
    store, embedded = transport
    media = store.put_media(PERSON, "big.log", "text/plain", b"x" * 2048)
    events = [
        {"event_id": "$honest", "content": {"msgtype": "m.file", "body": "big.log", "url": media.url}},
        {
            "event_id": "$declared",
            "content": {"msgtype": "m.file", "body": "huge.log", "url": media.url, "info": {"size": 10**9}},
        },
    ]
    workspace = tmp_path / "work"
    received = await Uploads(embedded, limit=1024).receive(workspace, Conversation("!r", None), events)
    over = "over the 1.0 KB limit for files agents receive"
    assert received.notes == {
        "$honest": f"[file: big.log] (not saved: it is {over})",
        "$declared": f"[file: huge.log] (not saved: it is 953.7 MB, {over})",
    }
    assert not workspace.exists()


async def test_an_unknown_file_is_named_as_not_fetched(
    tmp_path: Path, transport: tuple[RoomStore, EmbeddedTransport]
) -> None:
    _store, embedded = transport
    events = [
        {
            "event_id": "$e",
            "content": {"msgtype": "m.file", "body": "a.txt", "url": "mxc://miniroom.local/nope"},
        }
    ]
    received = await Uploads(embedded).receive(tmp_path, Conversation("!r", "$t"), events)
    assert received.notes["$e"].startswith(
        "[file: a.txt] (not saved: it could not be fetched: no file mxc://"
    )


async def test_hostile_names_land_inside_the_conversations_folder(
    tmp_path: Path, transport: tuple[RoomStore, EmbeddedTransport]
) -> None:
    store, embedded = transport
    names = ["../../../escape.txt", "..", "/etc/passwd", ".env"]
    events = []
    for number, name in enumerate(names):
        media = store.put_media(PERSON, name, "text/plain", f"data {number}".encode())
        events.append(
            {"event_id": f"${number}", "content": {"msgtype": "m.file", "body": name, "url": media.url}}
        )
    workspace = tmp_path / "work"
    await Uploads(embedded).receive(workspace, Conversation("!r", "$t"), events)
    folder = workspace / conversation_folder("!r", "$t")
    written = files_under(tmp_path)
    assert sorted(path.name for path in written) == ["attachment", "env", "escape.txt", "passwd"]
    assert all(path.parent == folder for path in written)
    assert len(written) == len(names)


async def test_a_turn_shows_the_model_its_newest_five_images_and_names_the_others(
    tmp_path: Path, transport: tuple[RoomStore, EmbeddedTransport]
) -> None:
    store, embedded = transport
    events = []
    for number in range(7):
        media = store.put_media(PERSON, f"shot{number}.png", "image/png", PNG + bytes([number]))
        content = {"msgtype": "m.image", "body": f"shot{number}.png", "url": media.url}
        events.append({"event_id": f"${number}", "content": content})
    received = await Uploads(embedded).receive(tmp_path, Conversation("!r", "$t"), events)
    folder = conversation_folder("!r", "$t")
    assert received.images == [f"{folder}/shot{number}.png" for number in range(2, 7)]
    assert not received.notes["$1"].endswith("the image follows")
    saved = f"saved in your working folder as {folder}/shot2.png, 71 bytes"
    assert received.notes["$2"] == f"[image: shot2.png] ({saved}); the image follows"
