"""A small server-sent events parser over lines, as the WHATWG spec frames them."""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncGenerator, AsyncIterable
from dataclasses import dataclass

# The spec's line ends only: str.splitlines would also split at U+2028 and the like, which JSON text may hold.
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SseEvent:
    event: str  # "message" when the server named none
    data: str  # the data lines joined by newlines


async def iter_sse(lines: AsyncIterable[str]) -> AsyncGenerator[SseEvent, None]:
    """Events from lines without their terminators (see `iter_lines`); a final event that never saw its
    blank line is incomplete and dropped, as the spec says, so a cut connection cannot yield half a JSON."""
    event = ""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield SseEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        # Comments (":" lines, used as keep-alives), `id` and `retry` carry nothing we use.


async def iter_lines(chunks: AsyncIterable[bytes]) -> AsyncGenerator[str, None]:
    """The UTF-8 lines of a body arriving in chunks, without their ends (CRLF, LF or CR); a long line's pieces
    are joined once, when it ends, so a line in many small chunks costs no repeated copying."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    partial: list[str] = []
    after_cr = False  # the last chunk ended in CR: an LF opening the next one ends no second line
    async for chunk in chunks:
        text = decoder.decode(chunk)
        if after_cr and text.startswith("\n"):
            text = text[1:]
        if text:
            after_cr = text.endswith("\r")
        pieces = _LINE_END.split(text)
        if len(pieces) > 1:
            yield "".join([*partial, pieces[0]])
            for line in pieces[1:-1]:
                yield line
            partial = []
        if pieces[-1]:
            partial.append(pieces[-1])
    rest = "".join(partial) + decoder.decode(b"", final=True)
    if rest:
        yield rest
