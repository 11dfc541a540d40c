"""Tokens as a provider counts them: a request's size, its window, and the prompt cache of its prefixes.

A request is `bytes / 4` tokens. Its prefix is cut into blocks in the order the vendor caches them (tools,
system, then each message's content), each block hashed together with everything before it, so two requests
share a cached prefix exactly when their first blocks are the same.

- Anthropic Messages caches explicitly: a block marked `cache_control` writes the prefix up to it; a later
  request reads the longest written prefix that ends at one of its breakpoints or up to 20 blocks before one.
- OpenAI Chat Completions caches automatically: any prefix of an earlier request, at least 1,024 tokens,
  counted in steps of 128.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from miniroom.testing.scripted_provider._model import ANTHROPIC, dumps

BYTES_PER_TOKEN = 4
MIN_CACHED_TOKENS = 1_024
LOOKBACK_BLOCKS = 20  # how far before a breakpoint Anthropic looks for an earlier cached prefix
OPENAI_CACHE_STEP = 128


def count_tokens(body: bytes) -> int:
    return len(body) // BYTES_PER_TOKEN


@dataclass(frozen=True)
class _Block:
    tokens: int  # of the prefix up to and including this block
    digest: bytes  # of the prefix up to and including this block
    breakpoint: bool


def _blocks(protocol: str, request: dict[str, Any]) -> list[_Block]:
    """The request's prefix blocks in cache order; cache marks are left out of what is hashed."""
    parts: list[tuple[Any, bool]] = []
    for tool in request.get("tools") or ():
        parts.append((tool, isinstance(tool, dict) and "cache_control" in tool))
    if protocol == ANTHROPIC:
        system = request.get("system")
        for block in system if isinstance(system, list) else [system] if system else []:
            parts.append((block, isinstance(block, dict) and "cache_control" in block))
        for message in request.get("messages") or ():
            content = message.get("content") if isinstance(message, dict) else None
            role = message.get("role") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else [content]:
                marked = isinstance(block, dict) and "cache_control" in block
                parts.append(([role, block], marked))
    else:
        parts += [(message, False) for message in request.get("messages") or ()]
    blocks: list[_Block] = []
    digest, tokens = hashlib.sha256(), 0
    for value, marked in parts:
        data = dumps(_unmarked(value))
        digest.update(data)
        tokens += len(data) // BYTES_PER_TOKEN
        blocks.append(_Block(tokens, digest.copy().digest(), marked))
    return blocks


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _unmarked(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(item) for item in value]
    return value


@dataclass
class PromptCache:
    """The prefixes earlier requests wrote to the cache, as their digests and token counts."""

    _written: set[bytes] = field(default_factory=set)

    def usage(self, protocol: str, request: dict[str, Any], body: bytes) -> tuple[int, int, int]:
        """(input, cache_read, cache_write) of a request, and what it leaves in the cache."""
        total = count_tokens(body)
        blocks = _blocks(protocol, request)
        if protocol == ANTHROPIC:
            read, write = self._explicit(blocks)
        else:
            read, write = self._automatic(blocks), 0
        return max(total - read - write, 0), read, write

    def _explicit(self, blocks: list[_Block]) -> tuple[int, int]:
        read = 0
        marks = [i for i, block in enumerate(blocks) if block.breakpoint]
        for mark in marks:
            for index in range(mark, max(mark - LOOKBACK_BLOCKS, -1), -1):
                if blocks[index].digest in self._written:
                    read = max(read, blocks[index].tokens)
                    break
        last = blocks[marks[-1]].tokens if marks else 0
        for mark in marks:
            if blocks[mark].tokens >= MIN_CACHED_TOKENS:
                self._written.add(blocks[mark].digest)
        return read, max(last - read, 0) if last >= MIN_CACHED_TOKENS else 0

    def _automatic(self, blocks: list[_Block]) -> int:
        read = 0
        for block in blocks:
            if block.digest in self._written:
                read = block.tokens
        self._written.update(block.digest for block in blocks if block.tokens >= MIN_CACHED_TOKENS)
        return read - read % OPENAI_CACHE_STEP if read >= MIN_CACHED_TOKENS else 0


def overflow_message(protocol: str, tokens: int, window: int) -> tuple[str, str]:
    """(error type, message) of each vendor's refusal of a prompt longer than the model's window."""
    if protocol == ANTHROPIC:
        return "invalid_request_error", f"prompt is too long: {tokens} tokens > {window} maximum"
    return "context_length_exceeded", (
        f"This model's maximum context length is {window} tokens. However, your messages resulted in "
        f"{tokens} tokens. Please reduce the length of the messages."
    )
