"""Where long command output is kept: a private folder (0700), removed when its agent closes or at exit."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import weakref
from pathlib import Path
from typing import IO

from miniroom.tools.sandbox import Sandbox

FOLDER_PREFIX = "miniroom-output-"
_live: weakref.WeakSet[OutputFolder] = weakref.WeakSet()


class OutputFolder:
    """Made on first use (so commands with short output leave nothing behind); `remove` may run many times."""

    def __init__(self) -> None:
        self._path: Path | None = None
        self._lock = threading.Lock()
        _live.add(self)

    @property
    def path(self) -> Path | None:
        return self._path

    def new_file(self, prefix: str, suffix: str) -> IO[bytes]:
        """A new file (0600) in the folder, open for writing; the caller closes it."""
        with self._lock:
            if self._path is None or not self._path.is_dir():
                self._path = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))  # mkdtemp makes it 0700
            folder = self._path
        return tempfile.NamedTemporaryFile(prefix=prefix, suffix=suffix, dir=folder, delete=False)

    def remove(self) -> None:
        with self._lock:
            path, self._path = self._path, None
        if path is not None:
            shutil.rmtree(path, ignore_errors=True)


class KeepsOutput:
    """A shell tool keeping long outputs in an `OutputFolder`, which the shells of one agent may share."""

    def __init__(self, output: OutputFolder | None = None, sandbox: Sandbox | None = None) -> None:
        self._output = output or OutputFolder()
        self._sandbox = sandbox  # where the tool's commands run; None: unsandboxed

    def close(self) -> None:
        """Remove the files long outputs were kept in: the agent holding this tool is done."""
        self._output.remove()


def _remove_all() -> None:
    for folder in list(_live):
        folder.remove()


atexit.register(_remove_all)
_shared = OutputFolder()


def shared_output_folder() -> OutputFolder:
    """The folder of tools made without one of their own (tests, one-off uses): removed at exit."""
    return _shared
