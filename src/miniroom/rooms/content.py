"""Matrix `content` for what miniroom posts: text with mentions, thread and reply relations (MSC3440),
in-place edits, reactions and redactions. One builder for the agents' replies and the web chat's posts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal
from urllib.parse import quote

from miniroom.rooms.attachments import msgtype_for
from miniroom.rooms.transport import Content

MESSAGE_EVENT = "m.room.message"
HTML_FORMAT = "org.matrix.custom.html"
EDIT_PREFIX = "* "
# How far an agent's reply has got, for clients that show more than the body (the web chat's "writing…").
TURN_KEY = "io.miniroom.turn"
TurnState = Literal["streaming", "done", "failed", "interrupted"]


def turn_info(
    state: TurnState,
    retries: Sequence[Mapping[str, Any]],
    error: str | None = None,
    *,
    tools: Sequence[Mapping[str, Any]] = (),
    usage: Mapping[str, Any] | None = None,
    forms: Sequence[Mapping[str, Any]] = (),
) -> Content:
    """The `io.miniroom.turn` object: the reply's state, every retry so far, why it failed or stopped, its
    tool calls (id, name, summary, status: for cards that fetch the rest), its spend so far, and the forms
    and buttons its body shows as numbered text (`rooms.forms`)."""
    info: Content = {"state": state, "retries": [dict(retry) for retry in retries]}
    if error is not None:
        info["error"] = error
    if tools:
        info["tools"] = [dict(tool) for tool in tools]
    if usage is not None:
        info["usage"] = dict(usage)
    if forms:
        info["forms"] = [dict(form) for form in forms]
    return info


def mentions_content(user_ids: Iterable[str]) -> dict[str, list[str]]:
    """`m.mentions`: an empty object when nobody is mentioned, as the spec requires it be present."""
    ids = list(dict.fromkeys(user_ids))
    return {"user_ids": ids} if ids else {}


def thread_relation(thread_root: str, in_reply_to: str, *, falling_back: bool = True) -> dict[str, Any]:
    """An MSC3440 thread relation; `falling_back` marks `in_reply_to` as the thread's latest event (the reply
    fallback for clients that do not show threads), not a reply the sender chose."""
    return {
        "rel_type": "m.thread",
        "event_id": thread_root,
        "is_falling_back": falling_back,
        "m.in_reply_to": {"event_id": in_reply_to},
    }


def reply_relation(in_reply_to: str) -> dict[str, Any]:
    return {"m.in_reply_to": {"event_id": in_reply_to}}


def conversation_relation(thread_root: str | None, in_reply_to: str | None) -> dict[str, Any] | None:
    """A message in the thread rooted at `thread_root`, or at room level (no relation) when it is None."""
    if thread_root is None:
        return None
    return thread_relation(thread_root, in_reply_to or thread_root)


def message_content(
    body: str,
    mentions: Iterable[str] = (),
    *,
    relates_to: Mapping[str, Any] | None = None,
    formatted_body: str | None = None,
    turn: Content | None = None,
) -> Content:
    """An `m.text` message: the body, its HTML if any, `m.mentions`, its relation and the turn's state."""
    content: Content = {"msgtype": "m.text", "body": body}
    if formatted_body is not None:
        content["format"] = HTML_FORMAT
        content["formatted_body"] = formatted_body
    content["m.mentions"] = mentions_content(mentions)
    if relates_to is not None:
        content["m.relates_to"] = dict(relates_to)
    if turn is not None:
        content[TURN_KEY] = turn
    return content


def media_content(
    filename: str,
    url: str,
    mimetype: str,
    size: int,
    *,
    relates_to: Mapping[str, Any] | None = None,
    caption: str | None = None,
) -> Content:
    """An m.image, m.audio, m.video or m.file message for an uploaded `url` (MSC2530: with a `caption` the
    body is the caption and `filename` the name, else the body is the name)."""
    content: Content = {
        "msgtype": msgtype_for(mimetype),
        "body": caption or filename,
        "filename": filename,
        "url": url,
        "info": {"mimetype": mimetype, "size": size},
        "m.mentions": {},
    }
    if relates_to is not None:
        content["m.relates_to"] = dict(relates_to)
    return content


def edit_content(original_id: str, new_content: Content, newly_mentioned: Iterable[str] = ()) -> Content:
    """An `m.replace` edit: the full new content, and at top level only the users it newly mentions."""
    return {
        "msgtype": "m.text",
        "body": EDIT_PREFIX + new_content["body"],
        "m.new_content": new_content,
        "m.relates_to": {"rel_type": "m.replace", "event_id": original_id},
        "m.mentions": mentions_content(newly_mentioned),
    }


def reaction_content(target: str, key: str) -> Content:
    return {"m.relates_to": {"rel_type": "m.annotation", "event_id": target, "key": key}}


def redaction_content(target: str, reason: str | None) -> Content:
    """Room version 11 redaction content: `redacts` is in the content, not at the top level."""
    return {"redacts": target} if reason is None else {"redacts": target, "reason": reason}


def permalink(room_id: str, event_id: str) -> str:
    """A matrix.to link to an event: Matrix clients open it, and the web chat opens its thread."""
    return f"https://matrix.to/#/{quote(room_id, safe='')}/{quote(event_id, safe='')}"
