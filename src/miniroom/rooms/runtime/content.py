"""Matrix `content` dicts for agent replies: thread replies (MSC3440), room messages and in-place edits."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from miniroom.rooms.transport import Content

MESSAGE_EVENT = "m.room.message"
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


def thread_relation(thread_root: str, in_reply_to: str) -> dict[str, object]:
    """An MSC3440 thread relation, with the reply fallback for clients that do not show threads."""
    return {
        "rel_type": "m.thread",
        "event_id": thread_root,
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": in_reply_to},
    }


def message_content(
    body: str,
    *,
    thread_root: str | None,
    in_reply_to: str | None,
    mentions: Iterable[str] = (),
    turn: Content | None = None,
) -> Content:
    """A text message, in the thread rooted at `thread_root` or at room level when it is None."""
    content = _text(body, mentions, turn)
    if thread_root is not None:
        content["m.relates_to"] = thread_relation(thread_root, in_reply_to or thread_root)
    return content


def edit_content(
    original_id: str,
    body: str,
    *,
    mentions: Iterable[str] = (),
    newly_mentioned: Iterable[str] = (),
    turn: Content | None = None,
) -> Content:
    """An `m.replace` edit: the full new content, and at top level only the users it newly mentions."""
    return {
        "msgtype": "m.text",
        "body": EDIT_PREFIX + body,
        "m.new_content": _text(body, mentions, turn),
        "m.relates_to": {"rel_type": "m.replace", "event_id": original_id},
        "m.mentions": mentions_content(newly_mentioned),
    }


def _text(body: str, mentions: Iterable[str], turn: Content | None) -> Content:
    content: Content = {"msgtype": "m.text", "body": body, "m.mentions": mentions_content(mentions)}
    if turn is not None:
        content[TURN_KEY] = turn
    return content
