"""A small server-sent events parser over lines, as the WHATWG spec frames them."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable
from dataclasses import dataclass


@dataclass(frozen=True)
class SseEvent:
    event: str  # "message" when the server named none
    data: str  # the data lines joined by newlines


async def iter_sse(lines: AsyncIterable[str]) -> AsyncGenerator[SseEvent, None]:
    """Events from lines without their terminators (httpx's `aiter_lines`); a final event that never saw its
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
