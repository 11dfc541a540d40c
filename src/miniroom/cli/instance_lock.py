"""One live `miniroom serve` per data folder: an OS lock on `<data folder>/serve.lock`, naming its holder.

Two instances on one data folder would both answer every message (the model paid twice, each session holding
it twice), so the second refuses at start. The lock is `flock`'s: the OS frees it when the process ends, even
killed (-9), so a crash never leaves the folder locked; the file's text (PID, address) only names the holder.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from miniroom.config.errors import UserError

LOCK_FILE = "serve.lock"


class DataFolderInUse(UserError):
    """Another live `miniroom serve` holds the data folder."""


@contextlib.contextmanager
def only_instance(data_dir: Path, address: str) -> Iterator[None]:
    """Hold `data_dir` for this process while inside; raise `DataFolderInUse` naming the holder if taken."""
    path = data_dir / LOCK_FILE
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # not inherited by child processes
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DataFolderInUse(in_use(data_dir, _read(descriptor))) from None
        _write(descriptor, holder_text(os.getpid(), address))
        try:
            yield
        finally:
            os.ftruncate(descriptor, 0)  # before the lock goes: a successor's text is never cut
    finally:
        os.close(descriptor)


def holder_text(pid: int, address: str) -> str:
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"pid: {pid}\naddress: {address}\nstarted: {started}\n"


def in_use(data_dir: Path, text: str) -> str:
    """Why this start is refused, naming the running instance as its lock file does."""
    fields = dict(line.partition(": ")[::2] for line in text.splitlines() if ": " in line)
    pid, address = fields.get("pid", "unknown"), fields.get("address", "unknown")
    started = f", started {fields['started']}" if "started" in fields else ""
    return (
        f"The data folder {data_dir} is already served by another miniroom serve (PID {pid}, at {address}"
        f"{started}); one data folder has one live instance, or every message would be answered twice. "
        f"Use the running one, or stop it first (kill {pid}). To run another instance beside it, give it "
        "a data folder of its own (MINIROOM_DATA_DIR, or a config.yaml in another folder) and another --port."
    )


def _read(descriptor: int) -> str:
    os.lseek(descriptor, 0, os.SEEK_SET)
    return os.read(descriptor, 4096).decode(errors="replace")


def _write(descriptor: int, text: str) -> None:
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, text.encode(), 0)
    os.fsync(descriptor)
