"""What `tools list/search/describe` and `context list/read` answer, from a response's tools and documents."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from miniroom.agent import parse_qualified
from miniroom.config.problems import did_you_mean
from miniroom.engine import Tool
from miniroom.minimal.errors import bad_input, not_found
from miniroom.minimal.search import SearchEntry, rank

SCHEMA_PREFIX = "schema:"  # the context name of a schema too large to send inline
MAX_INLINE_SCHEMA_CHARS = 4_000
DEFAULT_READ_CHARS = 8_000
MAX_READ_CHARS = 64_000
MAX_SEARCH_RESULTS = 50


def first_sentence(text: str) -> str:
    sentence = text.strip().split(". ", 1)[0]
    return sentence if sentence.endswith(".") else f"{sentence}."


def list_tools(tools: Mapping[str, Tool]) -> dict[str, Any]:
    """Every tool by toolkit, with the first sentence of its description."""
    toolkits: dict[str, list[dict[str, str]]] = {}
    for qualified, tool in tools.items():
        toolkit, _, function = qualified.partition(".")
        toolkits.setdefault(toolkit, []).append(
            {"tool": qualified, "function": function, "summary": first_sentence(tool.spec.description)}
        )
    return {
        "toolkits": [{"toolkit": name, "functions": functions} for name, functions in toolkits.items()],
        "next": "miniroom-agent tools describe TOOLKIT FUNCTION",
    }


def search_tools(tools: Mapping[str, Tool], query: str, limit: int) -> dict[str, Any]:
    if not query.strip():
        raise bad_input('the search is empty: say what the tool should do, e.g. tools search "read file"')
    if not 1 <= limit <= MAX_SEARCH_RESULTS:
        raise bad_input(f"limit must be between 1 and {MAX_SEARCH_RESULTS}, not {limit}")
    entries = [SearchEntry(name, name, tool.spec.description) for name, tool in tools.items()]
    hits = rank(query, entries, limit)
    results = [
        {"tool": hit.key, "score": hit.score, "summary": first_sentence(tools[hit.key].spec.description)}
        for hit in hits
    ]
    return {"query": query, "results": results}


def find_tool(tools: Mapping[str, Tool], name: str) -> tuple[str, Tool]:
    """The tool `name` (`files.read` or `files read`) qualifies, or a not-found error saying what exists."""
    parsed = parse_qualified(name)
    if parsed is None:
        raise bad_input(f"{name!r} is not TOOLKIT.FUNCTION (or TOOLKIT FUNCTION), e.g. files.read")
    tool = tools.get(parsed.qualified)
    if tool is not None:
        return parsed.qualified, tool
    hint = did_you_mean(parsed.qualified, tools)
    toolkits = sorted({qualified.partition(".")[0] for qualified in tools}) or ["none"]
    raise not_found(
        f"no tool {parsed.qualified} here{f' ({hint})' if hint else ''}; toolkits: {', '.join(toolkits)}. "
        "See miniroom-agent tools list"
    )


def describe_tool(tools: Mapping[str, Tool], name: str) -> dict[str, Any]:
    """The tool's description and parameters; a schema too large to send inline comes as a context name."""
    qualified, tool = find_tool(tools, name)
    spec = tool.spec
    toolkit, _, function = qualified.partition(".")
    described: dict[str, Any] = {"tool": qualified, "description": spec.description}
    schema = json.dumps(spec.parameters, ensure_ascii=False)
    if len(schema) <= MAX_INLINE_SCHEMA_CHARS:
        described["parameters"] = spec.parameters
    else:
        described["parameters"] = None
        described["parameters_context"] = SCHEMA_PREFIX + qualified
        described["parameters_chars"] = len(schema)
    described["call"] = f"miniroom-agent tools call {toolkit} {function} --json '{{...}}'"
    return described


def context_list(documents: Mapping[str, str]) -> dict[str, Any]:
    listed = [{"name": name, "chars": len(text)} for name, text in documents.items()]
    return {"documents": listed, "next": "miniroom-agent context read NAME --offset 0 --limit 8000"}


def context_text(documents: Mapping[str, str], tools: Mapping[str, Tool], name: str) -> str:
    """The document `name`: one `context list` returns, or a schema `tools describe` named."""
    if name in documents:
        return documents[name]
    if name.startswith(SCHEMA_PREFIX) and name.removeprefix(SCHEMA_PREFIX) in tools:
        return json.dumps(
            tools[name.removeprefix(SCHEMA_PREFIX)].spec.parameters, ensure_ascii=False, indent=1
        )
    raise not_found(
        f"no context document {name!r}: context read takes a name (not a file path) from "
        f"`miniroom-agent context list` ({', '.join(documents) or 'none'}) or from tools describe"
    )


def context_read(
    documents: Mapping[str, str], tools: Mapping[str, Tool], name: str, offset: int, limit: int
) -> dict[str, Any]:
    """`limit` characters of the document from `offset` on, and where the next page starts (None: done)."""
    if offset < 0:
        raise bad_input(f"offset must be 0 or more, not {offset}")
    if not 1 <= limit <= MAX_READ_CHARS:
        raise bad_input(f"limit must be between 1 and {MAX_READ_CHARS} characters, not {limit}")
    text = context_text(documents, tools, name)
    page = text[offset : offset + limit]
    end = offset + len(page)
    return {
        "name": name,
        "offset": offset,
        "total_chars": len(text),
        "text": page,
        "next_offset": end if end < len(text) else None,
    }
