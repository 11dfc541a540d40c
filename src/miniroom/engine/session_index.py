"""Finding sessions on disk: the latest one of a folder, one by id, or all of them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from miniroom.engine.session import Session, SessionError, subagent_parent
from miniroom.llm import Usage, UserMessage


def sessions_root(agent_dir: Path) -> Path:
    return agent_dir / "agent-sessions"


def directory_for_cwd(agent_dir: Path, cwd: Path) -> Path:
    """Sessions are kept per working folder: `/home/me/app` -> `--home-me-app--`."""
    safe = str(cwd.resolve()).strip(os.sep).replace(os.sep, "-").replace(":", "-")
    return sessions_root(agent_dir) / f"--{safe}--"


@dataclass(frozen=True)
class SessionInfo:
    id: str
    path: Path
    cwd: str
    started: str
    modified: float
    message_count: int
    first_prompt: str
    warnings: tuple[str, ...] = ()  # damaged lines that were skipped
    parent: str | None = None  # the parent session of a subagent's session
    description: str = ""  # a subagent's task name
    usage: Usage | None = None


def _session_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(directory.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)


def session_id_of(path: Path) -> str:
    """The id a session file's name ends in: `<start time>_<id>.jsonl` (or `<label>_<id>.jsonl`)."""
    return path.stem.split("_", 1)[-1]


def read_header(path: Path) -> dict[str, Any]:
    """A session file's header (its first line), or {} when it cannot be read."""
    try:
        with path.open("rb") as file:
            header = orjson.loads(file.readline())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return header if isinstance(header, dict) else {}


def latest_session_path(agent_dir: Path, cwd: Path) -> Path | None:
    """The folder's newest session that is not a subagent's (a subagent's is never resumed)."""
    files = _session_files(directory_for_cwd(agent_dir, cwd))
    return next((path for path in reversed(files) if subagent_parent(read_header(path)) is None), None)


def find_session_path(agent_dir: Path, session_id: str) -> Path:
    """Find a session by its id or a unique prefix of it, in any folder."""
    wanted = session_id.strip()
    if not wanted:
        raise SessionError("The session id is empty: give an id from `miniroom sessions list`.")
    matches = [p for p in sessions_root(agent_dir).glob("*/*.jsonl") if session_id_of(p).startswith(wanted)]
    if not matches:
        raise SessionError(
            f"No session with id '{wanted}' in {sessions_root(agent_dir)}. "
            "See `miniroom sessions list --all`."
        )
    if len(matches) > 1:
        raise SessionError(
            f"Session id '{wanted}' is ambiguous ({len(matches)} sessions): give more characters."
        )
    return matches[0]


def read_session_info(path: Path) -> SessionInfo | None:
    """Summarise a session file as `sessions show` reads it; None when it is not a session."""
    try:
        session = Session.load(path, whole=True)  # every damaged line named
    except SessionError:
        return None
    history = session.history()
    first_prompt = next((m.text for m in history if isinstance(m, UserMessage)), "")
    return SessionInfo(
        session.id,
        path,
        session.cwd,
        str(session.header.get("timestamp", "")),
        path.stat().st_mtime,
        len(history),
        first_prompt.strip(),
        tuple(session.load_report.warnings(path)),
        session.parent_id,
        str(session.header.get("description", "")),
        session.total_usage(),
    )


def list_sessions(agent_dir: Path, cwd: Path | None) -> list[SessionInfo]:
    """Sessions of one folder (or of all when cwd is None), newest last."""
    files = (
        _session_files(directory_for_cwd(agent_dir, cwd))
        if cwd is not None
        else sorted(sessions_root(agent_dir).glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime)
    )
    infos = (read_session_info(path) for path in files)
    return [info for info in infos if info is not None]


def child_session_paths(path: Path, session_id: str) -> dict[Path, dict[str, Any]]:
    """The files of session `session_id`'s subagents (kept beside its file at `path`), oldest first, with
    their headers."""
    headers = ((child, read_header(child)) for child in _session_files(path.parent))
    return {child: header for child, header in headers if subagent_parent(header) == session_id}


def child_sessions(path: Path, session_id: str) -> list[SessionInfo]:
    """The subagent sessions of session `session_id` (kept beside its file at `path`), oldest first."""
    infos = (read_session_info(child) for child in child_session_paths(path, session_id))
    return [info for info in infos if info is not None]
