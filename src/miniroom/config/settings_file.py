"""Reading a settings file without trusting it: a regular file, at most 256 KiB, UTF-8 text.

Every settings reader (`.miniroom/*.yml`, `config.yaml`, `models.json`) reads through here, so a FIFO, a link
to `/dev/zero` or a huge file fails at once with a message instead of hanging or filling memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from miniroom.config.errors import UserError
from miniroom.config.problems import Problem

MAX_SETTINGS_BYTES = 256 * 1024  # a YAML file four times this size takes PyYAML seconds to read
_SIZE_LIMIT = f"256 KiB ({MAX_SETTINGS_BYTES:,} bytes)"
_NOT_REGULAR = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class SettingsFileError(UserError, ValueError):
    """A settings file that cannot be used as it is; `problem` says where, what and how to fix it."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def read_settings_text(path: Path) -> str:
    """The file's text; FileNotFoundError when it is missing, SettingsFileError when it cannot be used."""
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise _error(path, f"cannot be read: {error.strerror or error}") from None
    try:
        _check_kind_and_size(path, os.fstat(descriptor))
        data = _read_at_most(descriptor, MAX_SETTINGS_BYTES + 1)
    except OSError as error:
        raise _error(path, f"cannot be read: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    if len(data) > MAX_SETTINGS_BYTES:  # it grew after fstat, or the system reports no size for it
        raise _error(path, f"is larger than {_SIZE_LIMIT}, the most a settings file may be")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = f"0x{data[error.start]:02x}"
        raise _error(path, f"is not UTF-8 text (byte {byte}): save it as UTF-8", line) from None


def _check_kind_and_size(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = _NOT_REGULAR.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise _error(path, f"is {kind}{_link_target(path)}: a settings file must be a regular file")
    if info.st_size > MAX_SETTINGS_BYTES:
        limit = f"a settings file may be at most {_SIZE_LIMIT}"
        raise _error(path, f"is {info.st_size:,} bytes; {limit}: is it the right file?")


def _read_at_most(descriptor: int, most: int) -> bytes:
    chunks: list[bytes] = []
    left = most
    while left > 0:
        chunk = os.read(descriptor, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _link_target(path: Path) -> str:
    return f" (a link to {os.path.realpath(path)})" if path.is_symlink() else ""


def _error(path: Path, message: str, line: int | None = None) -> SettingsFileError:
    return SettingsFileError(Problem(path, line, "", message))
