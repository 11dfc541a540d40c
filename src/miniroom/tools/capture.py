"""Merged command output in bounded memory: a tail for the model, everything in a file when it was cut."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import IO

from miniroom.tools.output import MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, keep_tail
from miniroom.tools.output_folder import OutputFolder, shared_output_folder

TEMP_FILE_PREFIX = "miniroom-bash-"
_TAIL_SLACK = 4  # once spilled to a file, memory keeps at most this many caps' worth of the tail


@dataclass(frozen=True)
class CapturedOutput:
    text: str  # what the model sees: the tail of the output, without the final newline
    total_lines: int
    notice: str | None = None  # the truncation line, naming the file with everything
    full_output_path: str | None = None


class OutputCapture:
    """Merged output in bounded memory: past the caps, it all streams to a temp file and a tail stays."""

    def __init__(
        self,
        max_lines: int = MAX_OUTPUT_LINES,
        max_bytes: int = MAX_OUTPUT_BYTES,
        folder: OutputFolder | None = None,
    ) -> None:
        self._folder = folder or shared_output_folder()
        self._max_lines = max_lines
        self._max_bytes = max_bytes
        self._buffer = bytearray()  # all the output until spilled to the file, then only its tail
        self._spilled = False
        self._tail_trimmed = False
        self._file: IO[bytes] | None = None
        self._path: str | None = None
        self._file_error: str | None = None
        self._newlines = 0
        self._total_bytes = 0
        self._ends_with_newline = False

    @property
    def buffered_bytes(self) -> int:
        return len(self._buffer)

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self._total_bytes += len(data)
        self._newlines += data.count(b"\n")
        self._ends_with_newline = data.endswith(b"\n")
        self._buffer += data
        if self._file is not None:
            self._write(data)
        elif not self._spilled and self._over_caps():
            self._spill()
        if self._spilled and len(self._buffer) > _TAIL_SLACK * self._max_bytes:
            del self._buffer[: len(self._buffer) - 2 * self._max_bytes]
            self._tail_trimmed = True

    def finish(self) -> CapturedOutput:
        """Close the file and return the tail; the file is kept only when the output was truncated."""
        self._close_file()
        raw = bytes(self._buffer)
        if self._tail_trimmed and b"\n" in raw:
            raw = raw[raw.index(b"\n") + 1 :]  # the trim cut the first line somewhere in its middle
        text = raw.decode("utf-8", "replace").removesuffix("\n")
        tail = keep_tail(text, self._max_lines, self._max_bytes)
        if not (tail.truncated or self._tail_trimmed):
            self.discard()
            return CapturedOutput(text, self._total_lines())
        if not self._spilled:
            self._spill()
            self._close_file()
        shown, what = tail.text, f"the last {tail.kept_lines} of {self._total_lines()} lines"
        if tail.kept_lines == 0:  # a single last line longer than the byte cap
            shown = text.encode()[-self._max_bytes :].decode("utf-8", "ignore")
            what = f"the end of the last line (over {self._max_bytes} bytes) of {self._total_lines()} lines"
        where = f"Full output: {self._path}" if self._path else f"Full output not saved: {self._file_error}"
        return CapturedOutput(
            shown, self._total_lines(), f"[Output truncated: showing {what}. {where}]", self._path
        )

    def discard(self) -> None:
        """Close and delete the temp file, if any (nobody will read it)."""
        self._close_file()
        if self._path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._path)
            self._path = None

    def _total_lines(self) -> int:
        if self._total_bytes == 0:
            return 0
        return self._newlines + (0 if self._ends_with_newline else 1)

    def _over_caps(self) -> bool:
        return self._total_bytes > self._max_bytes or self._newlines >= self._max_lines

    def _spill(self) -> None:
        self._spilled = True
        try:
            handle = self._folder.new_file(TEMP_FILE_PREFIX, ".log")
        except OSError as error:
            self._file_error = str(error)
            return
        self._file, self._path = handle, handle.name
        self._write(bytes(self._buffer))

    def _write(self, data: bytes) -> None:
        assert self._file is not None
        try:
            self._file.write(data)
        except OSError as error:  # a full disk must not break the command: keep the tail, say why
            self._file_error = f"writing {self._path} failed: {error}"
            self._close_file()
            self.discard()

    def _close_file(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
