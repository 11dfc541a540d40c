"""`tools search` ranks by BM25 over names and descriptions: table tests of the pure ranking."""

from __future__ import annotations

import pytest

from miniroom.minimal.search import SearchEntry, rank, words

ENTRIES = [
    SearchEntry("files.read", "files.read", "Read a text file, or an image."),
    SearchEntry("files.write", "files.write", "Create or overwrite a file with content."),
    SearchEntry("files.grep", "files.grep", "Search file contents for a regex."),
    SearchEntry("todo.todo_write", "todo.todo_write", "Plan and track multi-step work: the task list."),
    SearchEntry(
        "mcp_calendar.list_events", "mcp_calendar.list_events", "Upcoming meetings from the calendar."
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Read FILES", ["read", "file"]),
        ("todo_write", ["todo", "write"]),
        ("mcp_calendar.list_events", ["mcp", "calendar", "list", "event"]),
        ("class pass bus", ["class", "pass", "bus"]),  # no plural to drop: -ss, or too short
        ("", []),
    ],
)
def test_words_split_names_and_drop_plurals(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("read file", "files.read"),
        ("write", "files.write"),  # the name weighs more than todo_write's description words
        ("task list", "todo.todo_write"),
        ("calendar", "mcp_calendar.list_events"),
        ("meetings", "mcp_calendar.list_events"),
        ("regex search", "files.grep"),
    ],
)
def test_the_best_match_comes_first(query: str, first: str) -> None:
    assert rank(query, ENTRIES)[0].key == first


def test_a_word_in_the_name_outranks_the_same_word_in_a_description_only() -> None:
    entries = [
        SearchEntry("a.notes", "a.notes", "Keep a list of things to remember."),
        SearchEntry("b.list", "b.list", "Show entries."),
    ]
    assert [hit.key for hit in rank("list", entries)] == ["b.list", "a.notes"]


@pytest.mark.parametrize("query", ["", "   ", "zebra", "!!!"])
def test_nothing_matches_an_empty_or_foreign_query(query: str) -> None:
    assert rank(query, ENTRIES) == []


def test_the_limit_cuts_the_list_and_ties_go_by_name() -> None:
    entries = [SearchEntry(key, key, "same words here") for key in ("z.one", "a.two", "m.three")]
    hits = rank("words", entries, limit=2)
    assert [hit.key for hit in hits] == ["a.two", "m.three"]
    assert hits[0].score == hits[1].score > 0


def test_substring_search_would_miss_what_ranking_finds() -> None:
    """`read file` is no substring of any description, yet every file tool is found, read first."""
    hits = [hit.key for hit in rank("read file", ENTRIES)]
    assert hits[0] == "files.read"
    assert set(hits) == {"files.read", "files.write", "files.grep"}
