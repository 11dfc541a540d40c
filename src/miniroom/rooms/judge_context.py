"""What a judge is shown: messages as pseudonymous lines, the guidance and the question, within 16 KB.

Matrix identities never reach a judge: people become "Person 1", "Person 2" (a person's aliases one), bots
"Bot 1", agents their display names. Files and images appear only as `[file: report.pdf]` and a caption.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from miniroom.rooms.attachments import MEDIA_MSGTYPES
from miniroom.rooms.events import TEXT_MSGTYPES, RoomEvent, parse_event
from miniroom.rooms.judgment import Skip
from miniroom.rooms.policy import RoomPolicy
from miniroom.rooms.secrets import has_credential

MAX_JUDGE_BYTES = 16 * 1024
MAX_CONTEXT_MESSAGES = 8
_USER_ID = re.compile(r"@[A-Za-z0-9._=/+-]+:[A-Za-z0-9.-]+(?::\d{1,5})?")
Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class Line:
    """One message as a judge sees it; `media`: a file, image, audio or video; `attachment`: text that
    points at one (an mxc:// link or a `url`)."""

    role: Role
    author: str
    text: str
    media: bool = False
    attachment: bool = False

    def render(self) -> str:
        return f"{self.author}: {self.text}"

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "author": self.author, "text": self.text}


class Names(Protocol):
    """How a message's author and the user ids in its text are shown."""

    def of(self, user_id: str) -> str: ...

    def scrub(self, text: str) -> str: ...


class Pseudonyms:
    """Stable stand-ins for Matrix ids within one request."""

    def __init__(self, policy: RoomPolicy) -> None:
        self.policy = policy
        self._names: dict[str, str] = {}
        self._people = self._bots = 0

    def of(self, user_id: str) -> str:
        agent = self.policy.agents_by_user_id.get(user_id)
        if agent is not None:
            return agent.display_name or agent.name
        key = self.policy.person(user_id)
        if key not in self._names:
            if key in self.policy.not_humans:
                self._bots += 1
                self._names[key] = f"Bot {self._bots}"
            else:
                self._people += 1
                self._names[key] = f"Person {self._people}"
        return self._names[key]

    def scrub(self, text: str) -> str:
        """`text` with every Matrix user id in it replaced by its stand-in."""
        return _USER_ID.sub(lambda match: self.of(match.group(0)), text) if "@" in text else text


def shown_content(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """What a client shows of a message: its newest edit's `m.new_content` (bundled by the server under
    `unsigned.m.relations`) when its author made it, else its own content."""
    content = raw.get("content")
    content = content if isinstance(content, Mapping) else {}
    unsigned = raw.get("unsigned")
    relations = unsigned.get("m.relations") if isinstance(unsigned, Mapping) else None
    edit = relations.get("m.replace") if isinstance(relations, Mapping) else None
    if isinstance(edit, Mapping) and edit.get("sender") == raw.get("sender"):
        new_content = (edit.get("content") or {}).get("m.new_content")
        if isinstance(new_content, Mapping) and isinstance(new_content.get("body"), str):
            return new_content
    return content


def message_line(raw: Mapping[str, Any], names: Names, assistant: str | None) -> Line | None:
    """A room message as a line (None for anything else); `assistant`: the judged agent's user id."""
    event = parse_event(raw)
    if not event.is_message:
        return None
    content = shown_content(raw)
    role: Role = "assistant" if event.sender == assistant else "user"
    author = names.of(event.sender)
    body = str(content.get("body", ""))
    kind = MEDIA_MSGTYPES.get(str(content.get("msgtype")))
    if kind is not None or content.get("msgtype") not in TEXT_MSGTYPES:
        return Line(role, author, _media_text(kind or "attachment", content, names), media=True)
    attachment = "mxc://" in body or "url" in content or "file" in content
    return Line(role, author, names.scrub(body), attachment=attachment)


def _media_text(kind: str, content: Mapping[str, Any], names: Names) -> str:
    """`[file: report.pdf]` and the caption, if any (MSC2530: `filename` set, `body` the caption)."""
    filename = content.get("filename")
    body = str(content.get("body", ""))
    if isinstance(filename, str) and filename and filename != body:
        return f"[{kind}: {filename}] {names.scrub(body)}"
    return f"[{kind}: {body}]"


@dataclass(frozen=True)
class JudgeRequest:
    """A question about some messages, rendered for a model (`prompt`) or for TypeSafe (`state`)."""

    question: str
    guidance: str
    sections: tuple[tuple[str, tuple[Line, ...]], ...]

    def lines(self) -> Iterable[Line]:
        return (line for _title, lines in self.sections for line in lines)

    def prompt(self) -> str:
        parts = [f"Instructions from the agent's owner: {self.guidance}"] if self.guidance else []
        for title, lines in self.sections:
            parts.append(f"{title}:\n" + "\n".join(line.render() for line in lines))
        parts.append(self.question)
        return "\n\n".join(parts)

    def state(self) -> dict[str, Any]:
        sections = {title: [line.as_dict() for line in lines] for title, lines in self.sections}
        return {"instructions": self.guidance, "messages": sections}

    @property
    def size(self) -> int:
        """The bytes of what is sent: the larger of the two renderings."""
        state = json.dumps(self.state(), ensure_ascii=False)
        return max(len(self.prompt().encode()), len(state.encode()) + len(self.question.encode()))


def participation_question(agent: str) -> str:
    return (
        f"You decide whether {agent}, an AI agent in this chat thread with several people, should reply "
        "to the latest message now. It should reply when it can help or is being addressed, and stay "
        "quiet when the people are talking among themselves. Answer with one word: yes, no, or unsure."
    )


def participation_request(
    events: Sequence[Mapping[str, Any]], agent_user_id: str, policy: RoomPolicy, guidance: str | None
) -> JudgeRequest:
    """The agent's guidance and up to 8 recent messages of the thread (user and assistant) to judge."""
    names = Pseudonyms(policy)
    lines = [line for raw in events if (line := message_line(raw, names, agent_user_id)) is not None]
    recent = tuple(lines[-MAX_CONTEXT_MESSAGES:])
    agent = names.of(agent_user_id)
    return JudgeRequest(
        participation_question(agent), guidance or "", (("Recent messages, oldest first", recent),)
    )


def participation_skip(request: JudgeRequest) -> Skip | None:
    """Why the backend must not see this request: the reply model decides instead."""
    lines = list(request.lines())
    if any(line.media for line in lines):
        return Skip.MEDIA
    if any(line.attachment for line in lines):
        return Skip.ATTACHMENT
    if has_credential([request.guidance, *(line.text for line in lines)]):
        return Skip.SECRET
    if request.size > MAX_JUDGE_BYTES:
        return Skip.TOO_LARGE
    return None


def raw_of(event: RoomEvent) -> dict[str, Any]:
    """A parsed text message as the raw event a judge's lines are read from (id, sender, type, body)."""
    content = {"msgtype": event.msgtype, "body": event.body}
    return {
        "event_id": event.event_id,
        "room_id": event.room_id,
        "sender": event.sender,
        "type": event.type,
        "content": content,
    }
