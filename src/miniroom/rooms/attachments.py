"""Files, images, audio and video people send: what a message carries, the safe name it is saved under, and
the line an agent is told about it. No I/O here: `rooms.runtime.uploads` fetches and saves."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["image", "file", "audio", "video"]
MEDIA_MSGTYPES: Mapping[str, Kind] = {
    "m.image": "image",
    "m.file": "file",
    "m.audio": "audio",
    "m.video": "video",
}
UPLOADS_FOLDER = "uploads"
MAX_SAVED_BYTES = 20 * 1024 * 1024  # a file an agent is handed is saved up to this size
MAX_NAME_BYTES = 120  # well under every file system's 255, leaving room for a "-2" before the extension
FALLBACK_NAME = "attachment"
# Characters a file name keeps; anything else (separators, controls, quotes, shell specials) becomes "_".
_UNSAFE = re.compile(r"[^\w.+@=-]+")


@dataclass(frozen=True, slots=True)
class Attachment:
    """What a media message carries: its kind, the name it was sent as, where its bytes are, and more."""

    kind: Kind
    name: str  # the sender's file name (MSC2530 `filename`, else the body), unchecked
    url: str | None  # an mxc:// URI; None when the message has none (or is encrypted, `file`)
    mimetype: str | None
    size: int | None  # as the sender declared it (`info.size`), not trusted
    caption: str | None  # text sent with the file (MSC2530: `body` differs from `filename`)


def attachment_of(content: Mapping[str, Any]) -> Attachment | None:
    """The attachment a message's content carries, or None for anything but m.image/file/audio/video."""
    kind = MEDIA_MSGTYPES.get(str(content.get("msgtype")))
    if kind is None:
        return None
    body = content.get("body") if isinstance(content.get("body"), str) else ""
    filename = content.get("filename")
    name = filename if isinstance(filename, str) and filename else str(body)
    info = content.get("info")
    info = info if isinstance(info, Mapping) else {}
    url = content.get("url")
    mimetype = info.get("mimetype")
    size = info.get("size")
    return Attachment(
        kind=kind,
        name=name,
        url=url if isinstance(url, str) and url.startswith("mxc://") else None,
        mimetype=mimetype if isinstance(mimetype, str) else None,
        size=size if type(size) is int and size >= 0 else None,
        caption=str(body) if name != body and body else None,
    )


def msgtype_for(mimetype: str) -> str:
    """The message type a file of `mimetype` is sent as: m.image, m.audio, m.video, else m.file."""
    major = mimetype.partition("/")[0].lower()
    return f"m.{major}" if major in ("image", "audio", "video") else "m.file"


def safe_filename(name: str) -> str:
    """`name` as one harmless file name: its last path part, letters, digits and `._-+@=` only, no leading
    dot (so never hidden, `.` or `..`), at most `MAX_NAME_BYTES`, extension kept; "attachment" if nothing is
    left."""
    name = unicodedata.normalize("NFKC", name).replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = _UNSAFE.sub("_", name).strip("._") or FALLBACK_NAME
    stem, dot, extension = cleaned.rpartition(".")
    if not dot or not stem or len(extension) > 16:
        stem, extension = cleaned, ""
    suffix = f".{extension}" if extension else ""
    room = MAX_NAME_BYTES - len(suffix.encode())
    stem = stem.encode()[:room].decode("utf-8", "ignore").rstrip("._") or FALLBACK_NAME
    return stem + suffix


def numbered(name: str, number: int) -> str:
    """The `number`th other name for `name` (2: `report-2.csv`), for a name already taken in the folder."""
    stem, dot, extension = name.rpartition(".")
    return f"{stem}-{number}.{extension}" if dot and stem else f"{name}-{number}"


def conversation_folder(room_id: str, thread_root: str | None) -> str:
    """The uploads folder of one conversation, relative to the agent's working folder, e.g.
    `uploads/c3f1a0b2d4e6`: the same for the same room and thread, and free of the ids' characters."""
    key = hashlib.sha256(f"{room_id}\0{thread_root or ''}".encode()).hexdigest()[:12]
    return f"{UPLOADS_FOLDER}/{key}"


def label(attachment: Attachment) -> str:
    """`[file: report.pdf]`, as people's messages are shown everywhere else, with the caption if any."""
    shown = f"[{attachment.kind}: {attachment.name}]"
    return f"{shown} {attachment.caption}" if attachment.caption else shown


def saved_line(attachment: Attachment, where: str, size: int, *, image_attached: bool) -> str:
    """What the agent is told of an attachment saved at `where` (relative to its working folder)."""
    told = f"{label(attachment)} (saved in your working folder as {where}, {_size(size)})"
    return f"{told}; the image follows" if image_attached else told


def not_read_line(attachment: Attachment) -> str:
    """Audio and video are never passed on, and the agent is told so plainly."""
    told = f"not read: miniroom does not read {attachment.kind} messages, so its content is unknown"
    return f"{label(attachment)} ({told})"


def not_saved_line(attachment: Attachment, reason: str) -> str:
    return f"{label(attachment)} (not saved: {reason})"


def too_large(size: int | None, limit: int = MAX_SAVED_BYTES) -> str:
    """Why a file was not saved; `size` None when only its passing the limit is known."""
    over = f"over the {_size(limit)} limit for files agents receive"
    return f"it is {_size(size)}, {over}" if size is not None else f"it is {over}"


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
