"""Project context: the global and per-folder CLAUDE.md / AGENTS.md files put into the system prompt.

Problems with a file (unreadable, not UTF-8) never stop the agent: the file is skipped and a warning is
logged on this module's logger, which names the file and the fix.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from miniroom.engine import ToolError
from miniroom.tools import OutsideError, read_file_inside

logger = logging.getLogger(__name__)

CLAUDE_MD = "CLAUDE.md"
AGENTS_MD = "AGENTS.md"
CONTEXT_INTRO = "The files below are instructions from this project's owners; follow them."


@dataclass(frozen=True)
class ContextFile:
    path: Path
    text: str


def load_context_files(
    cwd: Path,
    agent_dir: Path,
    load_claude_md: bool = True,
    load_agents_md: bool = True,
    *,
    home: Path | None = None,
) -> list[ContextFile]:
    """The global `agent_dir/CLAUDE.md`, then one file per folder from the outermost folder down to `cwd`.

    The walk starts at the home folder when `cwd` is inside it (folders above home belong to the system or
    other users, not to this project), else at the filesystem root. `home` defaults to `Path.home()`.
    """
    # Each file with the folder it must stay in: a link out of it (say to ~/.ssh/id_rsa) is never sent.
    candidates: list[tuple[Path, Path]] = [(agent_dir / CLAUDE_MD, agent_dir)] if load_claude_md else []
    for folder in _folders_down_to(cwd.resolve(), (home or Path.home()).resolve()):
        chosen = _folder_context_file(folder, load_claude_md, load_agents_md)
        if chosen is not None:
            candidates.append((chosen, folder))
    files: list[ContextFile] = []
    seen: set[Path] = set()
    for path, root in candidates:
        real = path.resolve()
        if real in seen:  # the agent folder can be the project folder, or one of its parents
            continue
        seen.add(real)
        loaded = _read_context_file(path, root)
        if loaded is not None:
            files.append(loaded)
    return files


def render_context(files: Sequence[ContextFile]) -> str:
    """The system-prompt section holding the files, each under a `## <path>` heading; empty when none."""
    if not files:
        return ""
    sections = [f"## {file.path}\n\n{file.text}" for file in files]
    return "\n\n".join([CONTEXT_INTRO, *sections])


def _folders_down_to(cwd: Path, home: Path) -> list[Path]:
    """The folders from home or root (whichever is nearer) down to `cwd`, outermost first."""
    chain = [cwd, *cwd.parents]
    if home in chain:
        chain = chain[: chain.index(home) + 1]
    return list(reversed(chain))


def _folder_context_file(folder: Path, load_claude_md: bool, load_agents_md: bool) -> Path | None:
    """The one file a folder contributes: CLAUDE.md wins over AGENTS.md when both exist and both are on."""
    names = [name for name, on in ((CLAUDE_MD, load_claude_md), (AGENTS_MD, load_agents_md)) if on]
    for name in names:
        path = folder / name
        if path.is_file():
            return path
    return None


def _read_context_file(path: Path, root: Path) -> ContextFile | None:
    try:
        text = read_file_inside(root, path).decode("utf-8")
    except FileNotFoundError:
        return None
    except OutsideError as outside:
        warn_once_about_link(logger, path, outside, "context file")
        return None
    except OSError as error:
        logger.warning(
            "Skipped context file %s: cannot read it (%s). Fix its permissions.", path, error.strerror
        )
        return None
    except ToolError as error:
        logger.warning("Skipped context file %s: %s", path, error)
        return None
    except UnicodeDecodeError as error:
        logger.warning(
            "Skipped context file %s: it is not UTF-8 text (bad byte at offset %d). Save it as UTF-8.",
            path,
            error.start,
        )
        return None
    text = text.strip()
    return ContextFile(path, text) if text else None


_warned_links: set[Path] = set()


def warn_once_about_link(log: logging.Logger, path: Path, outside: OutsideError, what: str) -> None:
    """Say once per process that a file is a link leading outside its folder, and was left out."""
    if path in _warned_links:
        return
    _warned_links.add(path)
    log.warning(
        "Skipped %s %s: it leads to %s, outside %s, and files that lead out of their folder are never sent "
        "to the model. Put the file itself there instead of a link.",
        what,
        path,
        outside.resolved,
        outside.root,
    )
