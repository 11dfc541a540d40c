"""Finding an earlier subagent of this conversation to continue (`agent` with `resume`), by its session id."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from miniroom.engine import PARENT_CALL_KEY, Session, SessionError, child_session_paths, session_id_of

MINIMAL_KEY = "minimal"  # in a subagent's session header: it ran, and goes on, in minimal mode
NEW_INSTEAD = "Leave resume out to start a new subagent."
_LISTED = 10  # the most recent subagents an error names


@dataclass(frozen=True)
class EarlierChild:
    """A subagent session to continue: its file, task name and mode."""

    path: Path
    id: str
    description: str
    minimal: bool


def find_child(folder: Path, child_id: str, parents: Collection[str]) -> EarlierChild:
    """The subagent `child_id` of one of `parents` (this conversation's session ids) in `folder`, where
    subagent sessions are kept; ValueError says why there is none and which ones there are."""
    wanted = child_id.strip()
    paths = sorted(folder.glob(f"*_{wanted}.jsonl")) if wanted and "/" not in wanted else []
    path = next((p for p in paths if session_id_of(p) == wanted), None)
    header = _header(path) if path is not None else {}
    if path is None or not header:
        raise ValueError(f"There is no subagent '{wanted}'. {_known(folder, parents)}")
    parent = header.get("parentSession") if PARENT_CALL_KEY in header else None
    if not parent:
        raise ValueError(f"Session {wanted} is a conversation, not a subagent. {_known(folder, parents)}")
    if parent not in parents:
        raise ValueError(
            f"Subagent {wanted} belongs to another conversation (session {parent}); only this "
            f"conversation's subagents can be continued. {_known(folder, parents)}"
        )
    description = str(header.get("description") or "subagent")
    return EarlierChild(path, wanted, description, bool(header.get(MINIMAL_KEY)))


def _header(path: Path) -> dict[str, object]:
    try:
        with Session.load(path) as session:
            return dict(session.header)
    except SessionError:
        return {}


def _known(folder: Path, parents: Collection[str]) -> str:
    headers = [h for parent in parents for h in child_session_paths(folder / "-", parent).values()]
    listed = [f"{h.get('id')} ({h.get('description') or 'subagent'})" for h in headers[-_LISTED:]]
    if not listed:
        return f"No agent call of this conversation has started a subagent yet. {NEW_INSTEAD}"
    return f"This conversation's subagents: {', '.join(listed)}. {NEW_INSTEAD}"
