"""Files in the web chat: a person attaches one (its bytes are the request body) and it is posted as an
m.image, m.audio, m.video or m.file message; its bytes are read back by their media id."""

from __future__ import annotations

import asyncio
import re
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from miniroom.rooms.content import media_content
from miniroom.server.api import message_relation, room_of, send_event, store_of
from miniroom.server.errors import ApiError, bad_request, shown
from miniroom.server.inputs import optional_event_id, optional_txn_id
from miniroom.server.people import PERSON_FIELDS, sender_of
from miniroom.server.site import FILE_TYPE
from miniroom.transports.embedded.media import MAX_MEDIA_BYTES, too_large

MAX_FILENAME_CHARS = 255
# Shown in the page as they are; anything else is offered as a download, never rendered by the browser.
INLINE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_QUERY_FIELDS = ("filename", "mimetype", "thread_root", "txn_id", *PERSON_FIELDS)
_MIMETYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}")


async def attach(request: Request) -> JSONResponse:
    """`POST /api/rooms/{room}/attachments?filename=…&mimetype=…`: the body is the file, sent as
    application/octet-stream; `thread_root`, `txn_id`, `as` and `display_name` as for a message (in the
    query)."""
    store = store_of(request)
    room = await room_of(store, request.path_params["room"])
    data: dict[str, Any] = {key: value for key, value in request.query_params.items() if key in _QUERY_FIELDS}
    unknown = sorted(set(request.query_params) - set(_QUERY_FIELDS))
    if unknown:
        raise bad_request(f"unknown query parameter {shown(unknown[0])}; allowed: {', '.join(_QUERY_FIELDS)}")
    filename = data.get("filename", "").strip()
    if not filename or len(filename) > MAX_FILENAME_CHARS:
        raise bad_request(
            f'"filename" must name the file in 1 to {MAX_FILENAME_CHARS} characters, e.g. ?filename=log.txt'
        )
    mimetype = data.get("mimetype", "").strip().lower() or FILE_TYPE
    if not _MIMETYPE.fullmatch(mimetype):
        raise bad_request(f'"mimetype" must be a media type such as image/png, not {shown(mimetype)}')
    sender = sender_of(request, store, data)
    body = await _file_within_limit(request)
    relation = await message_relation(store, room.room_id, optional_event_id(data, "thread_root"), None)
    media = await asyncio.to_thread(store.put_media, sender.user_id, filename, mimetype, body)
    content = media_content(filename, media.url, mimetype, len(body), relates_to=relation)
    return await send_event(store, room, sender, "m.room.message", content, optional_txn_id(data))


async def _file_within_limit(request: Request) -> bytes:
    """The body, refused (413, with the limit) as soon as it says or turns out to be over MAX_MEDIA_BYTES."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_MEDIA_BYTES:
        raise _over(int(declared))
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_MEDIA_BYTES:
            raise _over(size)
        chunks.append(chunk)
    return b"".join(chunks)


def _over(size: int) -> ApiError:
    return ApiError(413, "M_TOO_LARGE", str(too_large(size)))


async def download(request: Request) -> Response:
    """`GET /api/media/{media_id}`: the file's bytes; images shown inline, anything else as a download."""
    store = store_of(request)
    media = await asyncio.to_thread(store.media, request.path_params["media_id"])
    inline = media.mimetype in INLINE_TYPES
    disposition = "inline" if inline else f"attachment; filename*=UTF-8''{quote(media.filename, safe='')}"
    headers = {
        "Content-Disposition": disposition,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "Cache-Control": "private, max-age=86400, immutable",
    }
    media_type = media.mimetype if inline else "application/octet-stream"
    return Response(media.data, media_type=media_type, headers=headers)


ROUTES = [
    Route("/api/rooms/{room}/attachments", attach, methods=["POST"]),
    Route("/api/media/{media_id}", download, methods=["GET"]),
]
