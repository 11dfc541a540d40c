"""Finding sessions on disk: the latest one of a folder, one by id, or all of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from miniroom.engine.session import Session, SessionError, directory_for_cwd, sessions_root
from miniroom.llm import UserMessage


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


def _session_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(directory.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)


def session_id_of(path: Path) -> str:
    """The id a session file's name ends in: `<start time>_<id>.jsonl` (or `<label>_<id>.jsonl`)."""
    return path.stem.split("_", 1)[-1]


def latest_session_path(agent_dir: Path, cwd: Path) -> Path | None:
    files = _session_files(directory_for_cwd(agent_dir, cwd))
    return files[-1] if files else None


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
        session = Session.load(path)
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
