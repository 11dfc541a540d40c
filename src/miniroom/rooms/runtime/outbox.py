"""Files an agent hands back: its `send_file` tool (offered in rooms, standard mode) queues a file of its
working folder, and once the reply is posted each file follows it in the conversation as its own message."""

from __future__ import annotations

import logging
import mimetypes
import os
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.rooms.attachments import MAX_SAVED_BYTES, too_large
from miniroom.rooms.content import MESSAGE_EVENT, conversation_relation, media_content, message_content
from miniroom.rooms.runtime.ledger import transaction_id
from miniroom.rooms.transport import MediaError, RoomTransport
from miniroom.tools import SNIFF_BYTES, BuiltinTool, Params, image_mime, inside_path, open_regular_file

log = logging.getLogger(__name__)
MAX_FILES = 10  # a turn's files; a model looping on send_file stops there


@dataclass(frozen=True, slots=True)
class Outgoing:
    name: str
    mimetype: str
    data: bytes


@dataclass
class Outbox:
    """The files one turn sends, in the order it sent them."""

    files: list[Outgoing] = field(default_factory=list)


class SendFileParams(Params):
    path: str = Field(description="File path")


class SendFileTool(BuiltinTool[SendFileParams]):
    name = "send_file"
    description = "Post a file from your working folder after your reply."
    params_model = SendFileParams

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox

    async def run(self, params: SendFileParams, ctx: ToolContext) -> ToolResult:
        if len(self.outbox.files) >= MAX_FILES:
            raise ToolError(f"This reply already sends {MAX_FILES} files, the most one reply may send.")
        target = inside_path(ctx.cwd, params.path)
        try:
            fd = open_regular_file(target)
        except FileNotFoundError:
            raise ToolError(f"File not found: {target.shown}. Check the path with ls or find.") from None
        except IsADirectoryError:
            raise ToolError(
                f"{target.shown} is a folder; send its files one by one, or an archive."
            ) from None
        with os.fdopen(fd, "rb") as file:
            data = file.read(MAX_SAVED_BYTES + 1)
        if len(data) > MAX_SAVED_BYTES:
            raise ToolError(f"{target.shown} was not sent: {too_large(None)}. Compress or split it first.")
        name = PurePosixPath(target.relative).name
        self.outbox.files.append(Outgoing(name, _mimetype(name, data), data))
        return ToolResult.text(f"{name} ({len(data):,} bytes) will be posted after your reply.")

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Send {arguments.get('path', '')}"


def _mimetype(name: str, data: bytes) -> str:
    return image_mime(data[:SNIFF_BYTES]) or mimetypes.guess_type(name)[0] or "application/octet-stream"


async def post_files(
    transport: RoomTransport, outbox: Outbox, sender: str, room_id: str, thread_root: str | None, after: str
) -> None:
    """Each file as its own message after the reply `after` (in its thread, if any); a file the server
    refuses becomes a notice saying so, never silence."""
    for index, outgoing in enumerate(outbox.files):
        relation = conversation_relation(thread_root, after)
        txn_id = transaction_id(after, sender, f"file{index}")  # a repeated send posts nothing new
        try:
            url = await transport.upload(sender, outgoing.data, outgoing.name, outgoing.mimetype)
            content = media_content(
                outgoing.name, url, outgoing.mimetype, len(outgoing.data), relates_to=relation
            )
        except MediaError as error:
            log.warning("Cannot post %s for %s in %s: %s", outgoing.name, sender, room_id, error)
            content = message_content(f"⚠ {outgoing.name} could not be posted: {error}", relates_to=relation)
            content["msgtype"] = "m.notice"
        await transport.send(sender, room_id, MESSAGE_EVENT, content, txn_id=txn_id)
