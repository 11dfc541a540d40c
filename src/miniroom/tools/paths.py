"""Path checks: every file tool works inside the working folder, and says so clearly when asked not to.

A path is resolved and checked, then opened beneath the working folder's descriptor without following any
link (`tools.beneath`): a part of the path swapped for a symlink between the check and the open makes the
open fail instead of leading outside. Tools then look at what they opened (fstat), never at the path again.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from miniroom.engine import ToolError
from miniroom.tools.beneath import FOLDER_FLAGS, open_beneath

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO put in a file's place must not hang the open
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


@dataclass(frozen=True)
class InsidePath:
    """A path resolved inside a folder: `path` as checked, `root` the folder (resolved) it must stay in."""

    root: Path
    path: Path

    @property
    def relative(self) -> str:
        return self.path.relative_to(self.root).as_posix()

    @property
    def shown(self) -> str:
        return display_path(self.root, self.path)


class OutsideError(ValueError):
    """A path that resolves outside the folder it must stay in."""

    def __init__(self, path: Path, resolved: Path, root: Path) -> None:
        super().__init__(f"{path} resolves to {resolved}, outside {root}")
        self.resolved = resolved
        self.root = root


def locate(root: Path, path: Path) -> InsidePath:
    """`path` resolved (following symlinks); OutsideError when it lands outside `root`."""
    top = root.resolve()
    resolved = path.resolve()
    if resolved != top and top not in resolved.parents:
        raise OutsideError(path, resolved, top)
    return InsidePath(top, resolved)


def inside_path(cwd: Path, user_path: str) -> InsidePath:
    """`user_path` (relative to `cwd`, absolute or `~`) resolved, refusing anything outside `cwd`."""
    if not user_path.strip():
        raise ToolError("The path is empty: give a file path relative to the working folder.")
    root = cwd.resolve()
    expanded = os.path.expanduser(user_path)
    candidate = Path(expanded) if os.path.isabs(expanded) else root / expanded
    try:
        return locate(root, candidate)
    except OSError as error:  # a link that vanished between reading its name and its target
        raise ToolError(
            f"Path '{user_path}' could not be resolved ({error.strerror}); it changed while being looked "
            "up. Try again once nothing else is changing the folder."
        ) from None
    except OutsideError as outside:
        raise ToolError(
            f"Path '{user_path}' resolves to {outside.resolved}, outside the working folder {root}. "
            "Only files inside the working folder can be used."
        ) from None


def open_inside(target: InsidePath, flags: int, *, make_folders: bool = False) -> int:
    """A descriptor for `target`, opened beneath its root; a link swapped in on the way is a ToolError."""
    root = os.open(target.root, FOLDER_FLAGS)
    try:
        return open_beneath(root, target.relative, flags, make_folders=make_folders)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EXDEV):
            raise ToolError(
                f"{target.shown} changed while it was being opened (a part of it became a symbolic link), "
                "so it was left alone. Try again once nothing else is changing the folder."
            ) from None
        raise
    finally:
        os.close(root)


def open_regular_file(target: InsidePath, flags: int = os.O_RDONLY) -> int:
    """A descriptor for an existing regular file: FileNotFoundError or IsADirectoryError otherwise."""
    try:
        fd = open_inside(target, flags | _NONBLOCK)
    except NotADirectoryError:  # a part of the folder path is a file: no such file there
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(target.path)) from None
    require_regular(fd, target)
    return fd


def open_folder(target: InsidePath, flags: int = FOLDER_FLAGS) -> int:
    """A descriptor for an existing folder: FileNotFoundError, or NotADirectoryError when it is a file."""
    try:
        return open_inside(target, flags | _DIRECTORY)
    except NotADirectoryError:
        if target.path.is_file():
            raise
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(target.path)) from None


def require_regular(fd: int, target: InsidePath) -> None:
    """Close `fd` and refuse unless it is a regular file (a folder is IsADirectoryError)."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return
    os.close(fd)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(target.path))
    raise ToolError(
        f"{target.shown} is not a regular file (a device, pipe or socket), so file tools leave it alone; "
        "use bash to inspect it."
    )


def read_file_inside(root: Path, path: Path) -> bytes:
    """A file that must resolve inside `root` (a link out is OutsideError), read without following links.

    For files miniroom reads on its own (context files, skills); OSError or ToolError when it cannot be read.
    """
    with os.fdopen(open_regular_file(locate(root, path)), "rb") as file:
        return file.read()


def display_path(cwd: Path, path: Path) -> str:
    """The path as the model should see it: relative to the working folder when inside it."""
    try:
        return str(path.relative_to(cwd.resolve())) or "."
    except ValueError:
        return str(path)
