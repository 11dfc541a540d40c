"""Tool names of MCP servers: `mcp__<server>__<tool>`, kept to what both wire protocols accept (pure).

Both the Anthropic and the OpenAI APIs take tool names of 1 to 64 letters, digits, `_` and `-`. A name that
would not fit has each other character made `_` and is cut to 55 characters, then `_` and 8 hex digits of
the full name's SHA-256 follow: the same server and tool always give the same name, and two different ones
never the same.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
SEPARATOR = "__"
MAX_TOOL_NAME = 64
_WIRE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_OUTSIDE = re.compile(r"[^A-Za-z0-9_-]")
_DIGEST_CHARS = 8
SERVER_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$")  # no `__`: it separates server and tool
MAX_SERVER_NAME = 40  # so a shortened tool name still starts with `mcp__<server>__`


def tool_name(server: str, tool: str) -> str:
    """The name the model sees for `tool` of `server`."""
    full = f"{PREFIX}{server}{SEPARATOR}{tool}"
    if _WIRE_NAME.match(full):
        return full
    digest = hashlib.sha256(full.encode("utf-8")).hexdigest()[:_DIGEST_CHARS]
    kept = _OUTSIDE.sub("_", full)[: MAX_TOOL_NAME - _DIGEST_CHARS - 1]
    return f"{kept}_{digest}"


def server_name_problem(name: object) -> str | None:
    """Why `name` cannot name a server in mcp.yml, or None."""
    if isinstance(name, str) and SERVER_NAME.match(name) and len(name) <= MAX_SERVER_NAME:
        return None
    if isinstance(name, bool):
        return f"YAML reads this server name as {str(name).lower()}, not as text: put the name in quotes"
    return (
        f"'{name}' cannot name a server: use letters, digits, '-' and single '_' (its tools are named "
        f"mcp__<server>__<tool>, so `__` would be ambiguous), starting with a letter or digit, at most "
        f"{MAX_SERVER_NAME} characters"
    )


def server_pattern(server: str) -> str:
    """The profile entry that stands for every tool of `server`: `mcp__<server>__*`."""
    return f"{PREFIX}{server}{SEPARATOR}*"


def names_tool(entry: str, name: str) -> bool:
    """Whether a profile's tool-list entry (`mcp__s__t` or `mcp__s__*`) stands for the tool `name`."""
    if entry.endswith(f"{SEPARATOR}*"):
        return name.startswith(entry[:-1])
    return entry == name
