"""What people send reaches the agent: each file or image of a turn is fetched through the transport and
saved in the agent's working folder (a folder per conversation), and the turn says where; images also go to
the model. Audio and video are not fetched: the turn says they were not read."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miniroom.engine import ToolError
from miniroom.llm import ImageContent
from miniroom.rooms.attachments import (
    MAX_SAVED_BYTES,
    Attachment,
    attachment_of,
    conversation_folder,
    not_read_line,
    not_saved_line,
    numbered,
    safe_filename,
    saved_line,
    too_large,
)
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.transport import MediaError, MediaTooLarge, RoomTransport
from miniroom.tools.paths import InsidePath, inside_path, open_inside, read_file_inside
from miniroom.tools.read import MAX_IMAGE_BYTES, SNIFF_BYTES, image_mime

log = logging.getLogger(__name__)
MAX_IMAGES = 5  # images a turn shows the model (the newest); older ones are named, as saved
MAX_SAME_NAMES = 100  # report.csv, report-2.csv, … report-100.csv; past that the file is not saved
NOT_LINKED = "it came without a link to its content (encrypted files are not supported)"


@dataclass
class Received:
    """What a turn is told of the attachments among its messages: a line per event id, and its images."""

    notes: dict[str, str] = field(default_factory=dict)
    images: list[str] = field(default_factory=list)  # relative to the working folder


class Uploads:
    """Saves attachments under `<working folder>/uploads/<conversation>/`; never follows a link there."""

    def __init__(self, transport: RoomTransport, limit: int = MAX_SAVED_BYTES) -> None:
        self.transport, self.limit = transport, limit

    async def receive(
        self, workspace: Path | None, conversation: Conversation, events: Sequence[Mapping[str, Any]]
    ) -> Received:
        """The notes and images of the attachments among `events`; `workspace` None: described by name only
        (a team, which has no working folder of its own)."""
        received = Received()
        images: list[tuple[str, Attachment, str, int]] = []  # (event id, attachment, where, size)
        for raw in events:
            content = raw.get("content")
            attachment = attachment_of(content) if isinstance(content, Mapping) else None
            event_id = raw.get("event_id")
            if attachment is None or not isinstance(event_id, str):
                continue
            note = await self._note(attachment, workspace, conversation)
            if isinstance(note, str):
                received.notes[event_id] = note
            else:
                images.append((event_id, attachment, *note))
        shown = images[-MAX_IMAGES:]  # the newest: the message that asked is the last
        for event_id, attachment, where, size in images:
            attached = (event_id, attachment, where, size) in shown
            received.notes[event_id] = saved_line(attachment, where, size, image_attached=attached)
        received.images = [where for _event_id, _attachment, where, _size in shown]
        return received

    async def _note(
        self, attachment: Attachment, workspace: Path | None, conversation: Conversation
    ) -> str | tuple[str, int]:
        """What the turn says of `attachment`, or (where, size) of an image the model may be shown."""
        if attachment.kind in ("audio", "video"):
            return not_read_line(attachment)
        if workspace is None:
            return not_saved_line(attachment, "a team has no working folder of its own")
        if attachment.url is None:
            return not_saved_line(attachment, NOT_LINKED)
        if attachment.size is not None and attachment.size > self.limit:
            return not_saved_line(attachment, too_large(attachment.size, self.limit))
        try:
            data = await self.transport.media(attachment.url, self.limit)
        except MediaTooLarge:
            return not_saved_line(attachment, too_large(None, self.limit))
        except MediaError as error:
            log.warning("Cannot fetch %s (%s): %s", attachment.url, attachment.name, error)
            return not_saved_line(attachment, f"it could not be fetched: {error}")
        folder = conversation_folder(conversation.room_id, conversation.thread_root)
        try:
            where = await asyncio.to_thread(save, workspace, folder, safe_filename(attachment.name), data)
        except (OSError, ToolError) as error:
            log.warning("Cannot save %s in %s: %s", attachment.name, workspace / folder, error)
            return not_saved_line(attachment, f"it could not be saved in the working folder: {error}")
        if attachment.kind == "image" and image_mime(data[:SNIFF_BYTES]) and len(data) <= MAX_IMAGE_BYTES:
            return where, len(data)
        return saved_line(attachment, where, len(data), image_attached=False)


def save(workspace: Path, folder: str, name: str, data: bytes) -> str:
    """Write `data` as `folder/name` beneath `workspace` (a link on the way is refused, not followed) and
    return that path; a name taken by other bytes gets a number, the same bytes (a turn run again) reuse
    it."""
    workspace.mkdir(parents=True, exist_ok=True)
    for number in range(1, MAX_SAME_NAMES + 1):
        relative = f"{folder}/{name if number == 1 else numbered(name, number)}"
        target = inside_path(workspace, relative)
        try:
            fd = open_inside(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, make_folders=True)
        except FileExistsError:
            if _holds(target, data):
                return relative
            continue
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        return relative
    raise FileExistsError(f"{MAX_SAME_NAMES} files named like {name} are already in {folder}")


def _holds(target: InsidePath, data: bytes) -> bool:
    try:
        return read_file_inside(target.root, target.path) == data
    except (OSError, ToolError):
        return False


def load_images(workspace: Path, paths: Sequence[str]) -> list[ImageContent]:
    """The saved images of a turn, for the model; one gone since (deleted by the agent) is left out."""
    images: list[ImageContent] = []
    for relative in paths:
        try:
            data = read_file_inside(workspace, workspace / relative)
        except (OSError, ToolError, ValueError):
            log.warning("The image %s is no longer in %s; the turn goes on without it", relative, workspace)
            continue
        mime = image_mime(data[:SNIFF_BYTES])
        if mime is not None:
            images.append(ImageContent(base64.b64encode(data).decode("ascii"), mime))
    return images
