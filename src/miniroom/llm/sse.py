"""A small server-sent events parser, as the WHATWG spec frames them: over a body's chunks, or over lines."""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncGenerator, AsyncIterable
from dataclasses import dataclass, field

# The spec's line ends only: str.splitlines would also split at U+2028 and the like, which JSON text may hold.
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SseEvent:
    event: str  # "message" when the server named none
    data: str  # the data lines joined by newlines


async def iter_sse_body(chunks: AsyncIterable[bytes]) -> AsyncGenerator[SseEvent, None]:
    """Events from a body arriving in chunks (see `iter_sse` for the framing). Lines are split a chunk at a
    time, not yielded one by one: a long answer has hundreds of thousands of them."""
    lines, framer = LineSplitter(), _Framer()
    async for chunk in chunks:
        for line in lines.feed(chunk):
            if (event := framer.add(line)) is not None:
                yield event
    for line in lines.end():
        if (event := framer.add(line)) is not None:
            yield event


async def iter_sse(lines: AsyncIterable[str]) -> AsyncGenerator[SseEvent, None]:
    """Events from lines without their terminators; a final event that never saw its blank line is
    incomplete and dropped, as the spec says, so a cut connection cannot yield half a JSON."""
    framer = _Framer()
    async for line in lines:
        if (event := framer.add(line)) is not None:
            yield event


@dataclass
class _Framer:
    """Collects one event's lines; a blank line dispatches it."""

    event: str = ""
    data: list[str] = field(default_factory=list)

    def add(self, line: str) -> SseEvent | None:
        if not line:
            dispatched = SseEvent(self.event or "message", "\n".join(self.data)) if self.data else None
            self.event, self.data = "", []
            return dispatched
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self.data.append(value)
        elif name == "event":
            self.event = value
        # Comments (":" lines, used as keep-alives), `id` and `retry` carry nothing we use.
        return None


class LineSplitter:
    """The UTF-8 lines of a body arriving in chunks, without their ends (CRLF, LF or CR); a long line's pieces
    are joined once, when it ends, so a line in many small chunks costs no repeated copying."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._partial: list[str] = []
        self._after_cr = False  # the last chunk ended in CR: an LF opening the next one ends no second line

    def feed(self, chunk: bytes) -> list[str]:
        """The lines this chunk completes."""
        text = self._decoder.decode(chunk)
        if self._after_cr and text.startswith("\n"):
            text = text[1:]
        if text:
            self._after_cr = text.endswith("\r")
        lines = _LINE_END.split(text)
        rest = lines.pop()
        if lines:
            lines[0] = "".join([*self._partial, lines[0]])
            self._partial = []
        if rest:
            self._partial.append(rest)
        return lines

    def end(self) -> list[str]:
        """The last line, when the body did not end with a line end."""
        rest = "".join(self._partial) + self._decoder.decode(b"", final=True)
        self._partial = []
        return [rest] if rest else []
