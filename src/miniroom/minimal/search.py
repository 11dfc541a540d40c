"""`tools search`: tools ranked by BM25 over the words of their names and descriptions; names weigh more."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

K1 = 1.2  # how fast a repeated word stops adding to the score
B = 0.75  # how much a long description is held against its words
NAME_WEIGHT = 3  # a word of the name counts as this many words of the description
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Lower-case words, `todo_write` and `mcp_github` split apart, a plural `s` dropped (files -> file)."""
    found = _WORD.findall(text.lower())
    return [
        word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
        for word in found
    ]


@dataclass(frozen=True, slots=True)
class SearchEntry:
    key: str  # what a hit returns: the qualified tool name
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Hit:
    key: str
    score: float


def rank(query: str, entries: Sequence[SearchEntry], limit: int = 10) -> list[Hit]:
    """The entries matching any word of `query`, best first (ties by key), at most `limit`."""
    terms = set(words(query))
    if not terms or not entries:
        return []
    documents = [Counter(words(entry.name) * NAME_WEIGHT + words(entry.description)) for entry in entries]
    average = sum(sum(document.values()) for document in documents) / len(documents)
    holding = Counter(term for document in documents for term in terms if term in document)
    hits = []
    for entry, document in zip(entries, documents, strict=True):
        length = sum(document.values())
        score = sum(
            _idf(len(documents), holding[term]) * _saturated(document[term], length, average)
            for term in terms
            if term in document
        )
        if score > 0:
            hits.append(Hit(entry.key, round(score, 4)))
    return sorted(hits, key=lambda hit: (-hit.score, hit.key))[:limit]


def _idf(total: int, holding: int) -> float:
    # The +1 keeps a word every tool shares slightly positive instead of zero or negative.
    return math.log(1 + (total - holding + 0.5) / (holding + 0.5))


def _saturated(frequency: int, length: int, average: float) -> float:
    return frequency * (K1 + 1) / (frequency + K1 * (1 - B + B * length / average))
