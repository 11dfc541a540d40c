"""The bubblewrap sandbox around an agent's shell: the argv that wraps a command, and whether bwrap works."""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import functools
import os
import secrets
import shutil
import stat
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from miniroom.config.paths import SETTINGS_FOLDER
from miniroom.tools.beneath import FOLDER_FLAGS, open_beneath

SandboxMode = Literal["off", "workspace", "read-only"]
# Inside the project, what a command must not change: a hook or an instruction planted there runs later,
# outside any sandbox.
PROTECTED_NAMES = (SETTINGS_FOLDER.name, "CLAUDE.md", "AGENTS.md", ".claude", ".agents", ".mini")
# In a `.git` folder, what runs commands later (hooks; config's core.hooksPath, core.fsmonitor, aliases): the
# objects, refs and index stay writable, so `git commit` works in the project.
PROTECTED_IN_GIT = ("config", "hooks", "modules", "info")
ENV_FILES = ".env*"  # files of secrets: a command reads each as empty, the file tools refuse them
INSTALL_HINT = "apt-get install bubblewrap"
# Every sandbox has a /tmp of its own: what lies in the real one is hidden, as the home is.
TMP = Path("/tmp")


class SandboxUnavailable(Exception):
    """The profile asks for a sandbox this machine cannot make; the message says why and what to install."""


@dataclass(frozen=True)
class Sandbox:
    """What one agent's shells may see: the project (writable in `workspace`) and the paths hidden from it."""

    mode: SandboxMode
    project: Path
    hidden: tuple[Path, ...] = ()  # folders replaced by an empty one: the home, the data folder, ~/.mini
    network: bool = False
    writable: tuple[Path, ...] = ()  # extra writable folders, such as the long-output folder
    shown: tuple[Path, ...] = ()  # extra read-only folders over the hidden ones, such as miniroom-agent's
    sockets: tuple[tuple[Path, str], ...] = ()  # (a socket outside, its path inside): miniroom's API relay

    def showing(self, search_path: str) -> Sandbox:
        """This sandbox with the folders of a PATH value that lie in a hidden folder visible (read-only), so
        its commands are found; a relative folder, or one that would show a hidden folder whole, is not."""
        return replace(self, shown=self.shown + _shown(search_path, _covered(self.hidden)))

    def with_socket(self, outside: Path, inside: str) -> Sandbox:
        return replace(self, sockets=(*self.sockets, (outside, inside)))

    def wrap(self, argv: Sequence[str], bwrap: str = "bwrap", info_fd: int | None = None) -> list[str]:
        """`argv` run inside bwrap (which reports its first process on `info_fd`); `off` leaves it as is."""
        if self.mode == "off":
            return list(argv)
        info = [] if info_fd is None else ["--info-fd", str(info_fd)]
        return [bwrap, *info, *self.arguments(), "--", *argv]

    def arguments(self) -> list[str]:
        project = self.project.resolve()
        hidden = _resolved(self.hidden)
        args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for folder in hidden:
            # One inside the project is hidden after the project is bound, which would show it again.
            if not folder.is_relative_to(project) and folder != Path("/"):
                args += ["--tmpfs", str(folder)]
        for folder in self.writable:
            if folder.is_dir():
                args += ["--bind", str(folder), str(folder)]
        # miniroom-agent runs on miniroom's own interpreter and code, which may live in the hidden home
        # (pyenv) or under /tmp (a checkout there).
        covered = _covered(self.hidden)
        for folder in (*_shown(os.pathsep.join(_interpreter_folders()), covered), *self.shown):
            args += ["--ro-bind", str(folder), str(folder)]
        kind = "--bind" if self.mode == "workspace" else "--ro-bind"
        args += [kind, str(project), str(project)]
        git = project / ".git"
        if self.mode == "workspace" and git.is_dir() and not git.is_symlink():
            # A mount point cannot be renamed: bound onto itself, `.git` cannot be moved aside for a new one
            # whose hooks and config are not bound read-only.
            args += ["--bind", str(git), str(git)]
        for folder in self.hidden_in_project():
            args += ["--tmpfs", str(folder)]
        args += self._protected(project)
        for outside, inside_path in self.sockets:
            args += ["--bind", str(outside), inside_path]
        # No capabilities, even when miniroom runs as root: with them a command could unmount what hides.
        args += ["--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        args += ["--chdir", str(project)]
        if not self.network:
            args.append("--unshare-net")
        return args

    def hidden_in_project(self) -> list[Path]:
        """The hidden folders (resolved) inside the project: hidden again after the project is bound."""
        project = self.project.resolve()
        hidden = _resolved(self.hidden)
        return [folder for folder in hidden if folder.is_relative_to(project) and folder != project]

    def watch_absent(self) -> AbsentWatch:
        """The protected paths that do not exist as a `workspace` command starts, watched until its `end`."""
        if self.mode != "workspace":
            return AbsentWatch(self.project, ())
        return AbsentWatch.start(self.project.resolve())

    def _protected(self, project: Path) -> list[str]:
        """What stays read-only in a writable project, and the `.env` files nobody reads."""
        args = []
        if self.mode == "workspace":
            for path in read_only_paths(project):
                if path.exists() or path.is_symlink():
                    # A symlink is bound as its target would be: keep it read-only where it points.
                    args += ["--ro-bind", str(path), str(path)]
            # One that does not exist is not bound: bwrap would create it on the real disk as a mount point.
            # `watch_absent` removes it after the command instead.
        for secret in _env_files(project):
            args += ["--ro-bind", "/dev/null", str(secret)]
        return args


MAX_REMOVED_DEPTH = 200  # a deeper tree is renamed out of the way instead: each level holds a descriptor
# A protected path that does not exist cannot be kept read-only the way an existing one is: a bind mount
# needs a mount point, which bwrap would create on the real disk (an empty CLAUDE.md, a `.git/hooks` folder),
# left there if miniroom dies; bwrap 0.8 has no overlay, and a read-only parent would make the project
# read-only. So the command may create it, and once every process of its sandbox is gone (a PID namespace of
# its own: its background jobs die with it), miniroom removes it. No command in `workspace` makes one
# legitimately, so removal is always right; what existed before the command is never touched.
# Commands run side by side (parallel_bash): a path one of them watches stays watched by every command
# started before it ends, so one that appeared in another's sandbox is never taken for the people's.
_watched: Counter[Path] = Counter()
_watch_lock = threading.Lock()


@dataclass(frozen=True)
class Removed:
    """A protected path that appeared while a command ran, and what became of it."""

    relative: str  # in the project, as `.git/hooks`
    folder: bool
    problem: str = ""  # why it could not be removed; then it was renamed to `aside` (or left, if that failed)
    aside: str = ""


@dataclass(frozen=True)
class AbsentWatch:
    """The protected paths absent when a command started; `end` removes those that have appeared since."""

    project: Path
    paths: tuple[Path, ...]

    @classmethod
    def start(cls, project: Path) -> AbsentWatch:
        with _watch_lock:
            absent = {path for path in read_only_paths(project) if not os.path.lexists(path)}
            absent.update(path for path in _watched if _protected_part(project, path))
            _watched.update(absent)
        return cls(project, tuple(sorted(absent)))

    def end(self) -> list[Removed]:
        """Remove each watched path that exists now, following no link: call it once the command's whole
        sandbox is gone. What was removed, in path order (a folder before what was in it)."""
        if not self.paths:
            return []
        with _watch_lock:
            _watched.subtract(self.paths)
            for path in self.paths:
                if _watched[path] <= 0:
                    del _watched[path]
            found = (_remove_new(self.project, path) for path in self.paths)
            return [removed for removed in found if removed is not None]


def _protected_part(project: Path, path: Path) -> bool:
    """Whether `path` lies in one of `project`'s protected names or its `.git`."""
    parts = path.relative_to(project).parts if path.is_relative_to(project) else ()
    return bool(parts) and parts[0] in (*PROTECTED_NAMES, ".git")


def _remove_new(project: Path, path: Path) -> Removed | None:
    """Remove `path` (a file, a link or a folder with all it holds) when it exists; None when it does not,
    or when a folder on the way to it is a link or gone (then nothing of it lies in the project)."""
    relative = path.relative_to(project)
    try:
        top = os.open(project, FOLDER_FLAGS)
    except OSError:
        return None
    try:
        parent = open_beneath(top, str(relative.parent), FOLDER_FLAGS)
    except OSError:
        return None
    finally:
        os.close(top)
    name = relative.name
    try:
        folder = stat.S_ISDIR(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        try:
            _remove_entry(parent, name, folder)
            return Removed(relative.as_posix(), folder)
        except OSError as error:  # a tree too deep, or an odd file system
            return _put_aside(parent, relative, folder, error.strerror or str(error))
    except FileNotFoundError:
        return None
    finally:
        os.close(parent)


def _remove_entry(parent: int, name: str, folder: bool, depth: int = 0) -> None:
    if not folder:
        os.unlink(name, dir_fd=parent)
        return
    if depth > MAX_REMOVED_DEPTH:
        raise OSError(errno.EMLINK, f"folders nested more than {MAX_REMOVED_DEPTH} deep")
    # Opened without following a link, made writable (a command may have left it read-only), then emptied.
    handle = open_beneath(parent, name, FOLDER_FLAGS)
    try:
        with contextlib.suppress(OSError):
            os.chmod(f"/proc/self/fd/{handle}", 0o700)
        contents = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=handle)
    finally:
        os.close(handle)
    try:
        with os.scandir(contents) as entries:
            for entry in list(entries):
                _remove_entry(contents, entry.name, entry.is_dir(follow_symlinks=False), depth + 1)
    finally:
        os.close(contents)
    os.rmdir(name, dir_fd=parent)


def _put_aside(parent: int, relative: Path, folder: bool, problem: str) -> Removed:
    """What could not be removed renamed to an unprotected name, so nothing reads or runs it."""
    aside = relative.with_name(f"{relative.name}.removed-{secrets.token_hex(4)}")
    try:
        os.rename(relative.name, aside.name, src_dir_fd=parent, dst_dir_fd=parent)
    except OSError as error:
        return Removed(relative.as_posix(), folder, f"{problem}; renaming it failed too: {error}")
    return Removed(relative.as_posix(), folder, problem, aside.as_posix())


def read_only_paths(project: Path) -> list[Path]:
    """What stays read-only in a `workspace` project, whether it exists or not: the protected names and the
    parts of `.git` that run commands later."""
    return [*(project / name for name in PROTECTED_NAMES), *_git_parts(project / ".git")]


def is_env_file(path: Path) -> bool:
    """Whether `path` has the name of a file of secrets (`.env`, `.env.local`): a command reads it empty."""
    return fnmatch.fnmatchcase(path.name, ENV_FILES)


def _git_parts(git: Path) -> list[Path]:
    """The parts of `.git` kept read-only: all of it when it is a link or a file (a worktree's)."""
    if git.is_dir() and not git.is_symlink():
        return [git / name for name in PROTECTED_IN_GIT]
    return [git]


def _interpreter_folders() -> tuple[str, ...]:
    """Where miniroom-agent's interpreter and miniroom's code live (for an editable install, the source)."""
    package_parent = Path(__file__).resolve().parents[2]
    return tuple(dict.fromkeys((sys.base_prefix, sys.prefix, str(package_parent))))


def _covered(hidden: tuple[Path, ...]) -> tuple[Path, ...]:
    """The folders a sandbox does not show: the hidden ones and the real /tmp."""
    return (*_resolved(hidden), TMP.resolve())


# Cached: a shell call's budget is a few milliseconds, and each path costs a stat per component to resolve.
@functools.lru_cache(maxsize=64)
def _resolved(folders: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(folder.resolve() for folder in folders if folder.is_dir())


@functools.lru_cache(maxsize=64)
def _shown(search_path: str, hidden: tuple[Path, ...]) -> tuple[Path, ...]:
    """The folders of `search_path` inside a hidden folder, but none holding one (which would show it)."""
    shown = []
    for part in dict.fromkeys(search_path.split(os.pathsep)):
        folder = Path(part)
        if not folder.is_absolute() or not folder.is_dir():
            continue
        folder = folder.resolve()
        inside = any(folder.is_relative_to(secret) for secret in hidden)
        if inside and not any(secret.is_relative_to(folder) for secret in hidden):
            shown.append(folder)
    return tuple(shown)


def _env_files(project: Path) -> Iterable[Path]:
    """`.env` files the command must not read; searched shallowly, so a large tree costs no walk."""
    for folder in (project, *_children(project)):
        for path in folder.glob(ENV_FILES):
            if path.is_file() and not path.is_symlink():
                yield path


def _children(project: Path) -> list[Path]:
    try:
        return [path for path in project.iterdir() if path.is_dir() and not path.name.startswith(".")]
    except OSError:
        return []


def sandbox_problem(mode: SandboxMode) -> str | None:
    """Why a sandbox in `mode` cannot be made on this machine, with what to do; None when it can."""
    if mode == "off":
        return None
    return _bwrap_problem(mode)


@functools.cache
def _bwrap_problem(mode: str) -> str | None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return f"sandbox: {mode} needs bubblewrap: {INSTALL_HINT}"
    probe = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"]
    probe += ["--unshare-net", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--", "/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"sandbox: {mode} could not start bubblewrap ({bwrap}): {error}"
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
        return (
            f"sandbox: {mode} needs bubblewrap to create namespaces, and here it cannot: {reason}. "
            "Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1), or set "
            "sandbox: off in the profile"
        )
    return None
