"""Opening a path beneath a folder's descriptor so that nothing swapped in on the way can lead out of it.

The path given is already resolved (no symlinks, no `..`), so any symlink met while opening it appeared since:
the open fails (ELOOP) instead of following it. openat2 with RESOLVE_BENEATH does this in one call where the
kernel has it (Linux 5.6+, `tools.openat2`); elsewhere a walk opens one component at a time, each
relative to the last and with O_NOFOLLOW.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Walking needs only search permission on a folder, which O_PATH asks for (Linux); elsewhere read it.
FOLDER_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | _DIRECTORY | _CLOEXEC


def components(relative: str) -> list[str]:
    """The names of a resolved relative path; "." or "" is the folder itself. Refuses `..` outright."""
    names = [name for name in relative.split("/") if name not in ("", ".")]
    if ".." in names:
        raise ValueError(f"'{relative}' holds '..': only resolved paths can be opened beneath a folder")
    return names


def open_beneath(
    dir_fd: int, relative: str, flags: int, mode: int = 0o666, *, make_folders: bool = False
) -> int:
    """A descriptor for `relative` beneath `dir_fd`, failing with ELOOP where any part of it is a symlink.

    `make_folders` creates the missing folders on the way (as `mkdir -p`), which only the walk can do.
    """
    names = components(relative)
    if not make_folders and _openat2_available():
        from miniroom.tools.openat2 import openat2_beneath

        return openat2_beneath(dir_fd, "/".join(names) or ".", flags, mode)
    return walk_beneath(dir_fd, names, flags, mode, make_folders=make_folders)


def walk_beneath(
    dir_fd: int, names: list[str], flags: int, mode: int = 0o666, *, make_folders: bool = False
) -> int:
    """The portable way: each folder opened relative to the one before it, never following a symlink."""
    opened: list[int] = []
    current = dir_fd
    try:
        for name in names[:-1]:
            if make_folders:
                _make_folder(name, current)
            current = _open_no_follow(name, FOLDER_FLAGS, 0, current)
            opened.append(current)
        return _open_no_follow(names[-1] if names else ".", flags | _CLOEXEC, mode, current)
    finally:
        for fd in opened:
            os.close(fd)


def _make_folder(name: str, dir_fd: int) -> None:
    # An existing name may be a folder, or a file or link, which the open after this refuses.
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o777, dir_fd=dir_fd)


def _open_no_follow(name: str, flags: int, mode: int, dir_fd: int) -> int:
    """openat with O_NOFOLLOW; a symlink in the way is ELOOP, whatever the flags make of it."""
    try:
        fd = os.open(name, flags | _NOFOLLOW, mode, dir_fd=dir_fd)
    except NotADirectoryError:
        if _is_symlink(name, dir_fd):  # O_DIRECTORY on a link says "not a folder"; it is a link
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise
    if flags & getattr(os, "O_PATH", 0) and stat.S_ISLNK(os.fstat(fd).st_mode):
        os.close(fd)  # O_PATH | O_NOFOLLOW opens the link itself rather than refusing it
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)
    return fd


def _is_symlink(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


@functools.cache
def _openat2_available() -> bool:
    """Whether openat2 works here (asked once); when in doubt the walk, which is always safe, is used."""
    from miniroom.tools.openat2 import SYSCALL_OPENAT2, openat2_beneath  # ctypes only where it is used

    if SYSCALL_OPENAT2 is None:
        return False
    try:
        root = os.open("/", FOLDER_FLAGS)
    except OSError:
        return False
    try:
        os.close(openat2_beneath(root, ".", FOLDER_FLAGS))
    except OSError:
        return False
    finally:
        os.close(root)
    return True
