"""Receiving a long answer: a 2 MB reply streamed by the scripted provider, through `stream_response`, against
a plain read of the same bytes from the same server in the same run.

Budget: at most 3x the plain read of the same bytes (about 2x here). Adding each delta to the message's text
attribute, which copies the whole text every time, took 4.8x at 2 MB, and grows with the square of the length.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time

import httpx

from miniroom.llm.events import StreamDone
from miniroom.llm.messages import Context, UserMessage
from miniroom.llm.model import Model
from miniroom.llm.stream import RequestOptions, stream_response
from miniroom.testing.scripted_provider import Reply, ScriptedProvider

ANSWER_BYTES = 2_000_000
BUDGET_RATIO = 3.0
PAIRS = 3
FRAGMENT = 16  # characters per text delta: real providers stream a few tokens at a time


def _answer() -> str:
    line = "The quick brown fox jumps over the lazy dog, and the answer goes on.\n"
    return (line * (ANSWER_BYTES // len(line) + 1))[:ANSWER_BYTES]


async def _through_the_engine(provider: ScriptedProvider, answer: str) -> tuple[float, int]:
    """Seconds to receive the answer with `stream_response`, and how many events it yielded."""
    model = Model(id="bench", provider="scripted", api="anthropic-messages", base_url=provider.url)
    context = Context("bench", [UserMessage.of_text("say a lot")])
    provider.script(Reply(text=answer, usage=(10, len(answer) // 4, 0, 0), fragment=FRAGMENT))
    async with httpx.AsyncClient() as client:
        started = time.perf_counter()
        events = [event async for event in stream_response(model, context, RequestOptions(), client)]
        elapsed = time.perf_counter() - started
    done = events[-1]
    assert isinstance(done, StreamDone), done
    assert done.error is None, done.error
    assert done.message.text == answer
    return elapsed, len(events)


async def _plain_read(provider: ScriptedProvider, answer: str) -> tuple[float, int]:
    """Seconds to read the same streamed bytes with no parsing, and their size."""
    provider.script(Reply(text=answer, usage=(10, len(answer) // 4, 0, 0), fragment=FRAGMENT))
    body = provider.requests[-1].body
    async with httpx.AsyncClient() as client:
        started = time.perf_counter()
        size = 0
        async with client.stream("POST", f"{provider.url}/v1/messages", json=body) as response:
            async for chunk in response.aiter_bytes():
                size += len(chunk)
        return time.perf_counter() - started, size


def main() -> int:
    answer = _answer()
    runs = []
    with ScriptedProvider() as provider:
        for _ in range(PAIRS):  # side by side, so a drift in the machine's speed weighs on both alike
            gc.collect()
            engine, events = asyncio.run(_through_the_engine(provider, answer))
            gc.collect()
            plain, size = asyncio.run(_plain_read(provider, answer))
            runs.append((engine / plain, engine, plain))
    ratio, engine, plain = sorted(runs)[len(runs) // 2]
    verdict = "ok" if ratio <= BUDGET_RATIO else "OVER BUDGET"
    print(
        f"stream receive: a {len(answer) / 1e6:.1f} MB answer ({size / 1e6:.1f} MB on the wire, "
        f"{events:,} events), median of {PAIRS} | plain read {plain * 1000:.0f} ms | stream_response "
        f"{engine * 1000:.0f} ms ({ratio:.1f}x; runs: {', '.join(f'{r[0]:.1f}x' for r in sorted(runs))}; "
        f"budget {BUDGET_RATIO:g}x) {verdict}"
    )
    return 0 if ratio <= BUDGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
