"""Every settings reader, fuzzed: whatever a file holds, a located problem (or nothing) comes back, and fast.

Three kinds of input per reader: structured settings (the file's own keys and random ones, random values and
nesting), a soup of YAML/JSON tokens (anchors, aliases, tags, brackets, long numbers, control characters),
and raw bytes. Derandomized with bounded examples, so every run tries the same cases.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.settings.readers import READERS, Reader, located, no_hang

FUZZ = settings(
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,  # the hang guard below bounds each case instead of a timing that a loaded machine breaks
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
KEYS = {
    "miniagent.yml": [
        "profiles", "safe", "readonly", "2024", "yes", "loadClaudeMd", "loadAgentsMd", "enabledTools",
        "disabledTools", "toolCallTimeout", "maxOutputTokens", "thinkingBudget", "thinkingLevel",
        "parallelBashThreads", "readMaxLines", "maxParallelAgents", "systemPrompt", "sessionHeader",
        "minimalBashTimeout",
    ],
    "retry.yml": ["retryIntervalSeconds", "maxAttempts", "backoff"],
    "fetch.yml": [
        "services", "name", "type", "enabled", "priority", "settings", "Direct", "Proxied", "UserAgent",
        "TimeoutSec", "ProxyUrl", "BrowserType", "ServiceUrl", "Protocol", "Command", "ExtraHeaders",
    ],
    "search.yml": [
        "services", "name", "type", "enabled", "priority", "settings", "Brave", "SearXNG", "JsonSeo",
        "ApiKey", "BaseUrl", "Engine", "Region", "ScriptKey", "Args", "TimeoutSec",
    ],
    "mcp.yml": [
        "servers", "files", "off", "a__b", "type", "stdio", "http", "sse", "command", "args", "env", "url",
        "headers", "enabled", "timeout",
    ],
    "hooks.yml": ["hooks", "deny", "event", "matcher", "command", "timeout", "PreToolUse", "Stop"],
    "config.yaml": [
        "agents", "rooms", "models", "router", "defaults", "matrix", "bot_accounts", "display_name", "role",
        "instructions", "model", "tools", "thread_mode", "room_thread_modes", "participation", "judgment",
        "provider", "variables", "alias", "homeserver", "server_name", "registration", "invite_from",
        "mid_turn", "teams", "mode", "threshold", "debounce_seconds", "decline_reaction", "defer_reaction",
    ],
    "models.json": [
        "providers", "models", "id", "name", "api", "baseUrl", "apiKey", "headers", "contextWindow",
        "maxTokens", "cost", "input", "output", "reasoning", "modelOverrides", "compat", "authHeader",
    ],
}  # fmt: skip
WORDS = [
    "read", "bash", "off", "high", "thread", "room", "llm", "typesafe", "anthropic/claude-sonnet-5:high",
    "coordinate", "collaborate", "groq/compound",
    "mini:safe", "mini:nosuch", "codex", "AGENT_BACKEND=mini:safe", "AGENT_BACKEND=mini:nope",
    "MINI_PROFILE_TOOL_CALL_TIMEOUT=abc", "MINI_PROFILE_ENABLED_TOOLS=read",
    "MINI_PROFILE_DISABLED_TOOLS=bash", "MINI_PROFILE_NOPE=1", "@bot:example.org",
    "https://matrix.example.org", "openai-completions", "$KEY", "PreToolUse", "bash(rm -rf *)", "bash()",
    "a((", "mcp__files__*", "streamable-http", "${TOKEN:-x}",
]  # fmt: skip
TOKENS = [
    "a:", "profiles:", "agents:", "models:", "variables:", "maxAttempts:", "retryIntervalSeconds:", " ", "  ",
    "\n", "\t", "- ", "[", "]", "{", "}", ",", ": ", "? ", "&a ", "&b ", "*a", "*b", "<<: ", "---\n",
    "...\n", "!!int ", "!!float ", "!!bool ", "!!timestamp ", "!!binary ", "!!set ", "!!omap ", "!!str ",
    "!custom ", "'", '"', "\\", "#", "|\n", ">\n", "\x00", "\x01", "\x1b", "\x85", "\ufeff", "\ud7ff", "é",
    "9" * 120, "1" + "0" * 400, "59:" * 40 + "1", "1e400", "1.0e+400", ".inf", ".nan", "-0", "0x1F", "0o7",
    "2024-13-45", "2024-01-01", "true", "yes", "off", "null", "~", "mini:safe", '"providers"', "//", "/*",
    "*/", "NaN", "Infinity",
]  # fmt: skip


def values(reader: Reader) -> st.SearchStrategy[Any]:
    """Settings-shaped data: the file's own keys and random ones, with values of every type, nested."""
    keys = st.sampled_from(KEYS[reader.relative.rsplit("/", 1)[-1]]) | st.text(max_size=12)
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.integers(min_value=2**31 - 2, max_value=10**120)
        | st.floats()
        | st.text(max_size=40)
        | st.sampled_from(WORDS)
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=25,
    )


def as_text(reader: Reader, data: Any) -> str:
    if reader.relative.endswith(".json"):
        return json.dumps(data)
    return yaml.safe_dump(data, allow_unicode=True)


def read_quickly(reader: Reader, path: Path, content: bytes) -> None:
    """The reader's verdict on `content`: no exception but its documented ones, every message located."""
    path.write_bytes(content)
    with no_hang():
        messages = reader.read(path)
    for message in messages:
        assert located(message, path), message


@pytest.mark.parametrize("reader", READERS, ids=lambda reader: reader.name)
@FUZZ
@given(data=st.data())
def test_structured_settings(tmp_path: Path, reader: Reader, data: st.DataObject) -> None:
    tree = data.draw(values(reader), label="settings")
    read_quickly(reader, reader.place(tmp_path), as_text(reader, tree).encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("reader", READERS, ids=lambda reader: reader.name)
@settings(FUZZ, max_examples=150)
@given(tokens=st.lists(st.sampled_from(TOKENS), max_size=80))
def test_token_soup(tmp_path: Path, reader: Reader, tokens: list[str]) -> None:
    read_quickly(reader, reader.place(tmp_path), "".join(tokens).encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("reader", READERS, ids=lambda reader: reader.name)
@FUZZ
@given(content=st.binary(max_size=600))
def test_raw_bytes(tmp_path: Path, reader: Reader, content: bytes) -> None:
    read_quickly(reader, reader.place(tmp_path), content)
