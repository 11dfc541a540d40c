"""Prompt size: the default agent's system prompt plus every tool schema, as `miniroom run` really sends them.

Runs `miniroom run` in a temporary project with fetch and search on (with an empty MINI_AGENT_DIR, so no
CLAUDE.md, skills or models.json) against the scripted provider, in both wire protocols, and measures the
first request: the system prompt text and the tool list as compact JSON. Tokens are estimated as characters
/ 4.
`ask_user` (offered only where a person can answer: rooms and `miniroom chat`, not `run`) and `send_file`
(rooms only) are added in the request's own shape, so the budget covers a room agent's whole tool set.
Budget: at most 2,500 tokens in each protocol; exit 1 when over. Then the tokens each MCP server adds (the
SDK-written test server, over stdio), which no budget covers: they are the user's choice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from miniroom.rooms.runtime.outbox import SendFileTool
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.tools.ask_user import AskUserTool

BUDGET_TOKENS = 2_500
CHARS_PER_TOKEN = 4
SEARCH_YML = (
    "services:\n  - name: SearXNG\n    type: SearXNG\n    settings: {BaseUrl: 'http://127.0.0.1:9'}\n"
)
PROTOCOLS = ("anthropic-messages", "openai-completions")
# Variables that would point `miniroom` elsewhere or change the default agent.
CLEARED = ("MODEL", "MINI_PROVIDER", "AGENT_BACKEND", "MINIROOM_CONFIG", "HTTP_PROXY", "HTTPS_PROXY")


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


MCP_TEST_SERVER = Path(__file__).resolve().parent.parent / "tests" / "mcp" / "server.py"


def bench_env(folder: Path, provider: ScriptedProvider, api: str) -> dict[str, str]:
    """The environment of a `miniroom run` on the scripted provider, with nothing of the user's settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in CLEARED and not key.startswith("MINI_") and not key.endswith("_API_KEY")
    }
    env.update(
        MINI_AGENT_DIR=str(folder / "mini"),
        MODEL="scripted/bench-model",
        MINI_API=api,
        MINI_BASE_URL=provider.url if api == "anthropic-messages" else provider.openai_base_url,
        MINI_API_KEY="bench-key",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def first_request(api: str, mcp_servers: dict[str, Any] | None = None) -> dict[str, Any]:
    """The body of the first request a default `miniroom run` sends in this protocol (with `mcp_servers` as
    the project's mcp.yml, when given)."""
    miniroom = str(Path(sys.executable).with_name("miniroom"))
    with ScriptedProvider() as provider, tempfile.TemporaryDirectory() as folder:
        project = Path(folder, "project")
        (project / ".miniroom").mkdir(parents=True)
        # fetch is on by default (fetch.yml is created with a Direct service); search needs a service
        (project / ".miniroom" / "search.yml").write_text(SEARCH_YML, encoding="utf-8")
        if mcp_servers:
            (project / ".miniroom" / "mcp.yml").write_text(json.dumps({"servers": mcp_servers}))
        env = bench_env(Path(folder), provider, api)
        provider.script(Reply(text="ok", usage=(1, 1, 0, 0)))
        result = subprocess.run(
            [miniroom, "run", "hi"], cwd=project, env=env, capture_output=True, text=True, timeout=60
        )
        if result.returncode != 0 or not provider.requests:
            raise RuntimeError(f"miniroom run failed ({result.returncode}): {result.stderr.strip()}")
        return provider.requests[0].body


def with_room_tools(body: dict[str, Any]) -> dict[str, Any]:
    """`body` with `ask_user` and `send_file` after its tools, written as the body writes the others."""
    tools = list(body.get("tools") or [])
    for spec in (AskUserTool.class_spec(), SendFileTool.class_spec()):
        fields = {"name": spec.name, "description": spec.description}
        if tools and "function" in tools[0]:
            tools.append({"type": "function", "function": {**fields, "parameters": spec.parameters}})
        else:
            tools.append({**fields, "input_schema": spec.parameters})
    return {**body, "tools": tools}


def tool_name(tool: dict[str, Any]) -> str:
    return str(tool["function"]["name"] if "function" in tool else tool["name"])


def measure(body: dict[str, Any]) -> tuple[int, int, dict[str, int]]:
    """Characters of the system prompt, of the whole tool list, and of each tool's schema."""
    if "system" in body:
        system = "".join(block["text"] for block in body["system"])
    else:
        system = "".join(m["content"] for m in body["messages"] if m["role"] == "system")
    tools = body.get("tools") or []
    per_tool = {tool_name(tool): len(compact(tool)) for tool in tools}
    return len(system), len(compact(tools)), per_tool


def tokens(chars: int) -> int:
    return chars // CHARS_PER_TOKEN


def mcp_tokens_per_server() -> dict[str, tuple[int, int]]:
    """Each server's tool count and schema tokens, as a request carries them."""
    entry = {"type": "stdio", "command": sys.executable, "args": [str(MCP_TEST_SERVER), "stdio"]}
    _, _, per_tool = measure(first_request(PROTOCOLS[0], {"test": entry}))
    added: dict[str, tuple[int, int]] = {}
    for name, chars in per_tool.items():
        if name.startswith("mcp__"):
            server = name.split("__")[1]
            count, total = added.get(server, (0, 0))
            added[server] = (count + 1, total + chars)
    return {server: (count, tokens(chars)) for server, (count, chars) in added.items()}


def main() -> int:
    over = False
    for api in PROTOCOLS:
        system, tools, per_tool = measure(with_room_tools(first_request(api)))
        total = system + tools
        verdict = "ok" if tokens(total) <= BUDGET_TOKENS else "OVER BUDGET"
        over = over or tokens(total) > BUDGET_TOKENS
        print(
            f"prompt size ({api}): system {system:,} chars | {len(per_tool)} tools {tools:,} chars | "
            f"total {total:,} chars ≈ {tokens(total):,} tokens (budget {BUDGET_TOKENS:,}) {verdict}"
        )
        largest = sorted(per_tool.items(), key=lambda item: -item[1])
        print("  tools: " + ", ".join(f"{name} {tokens(chars)}" for name, chars in largest))
    for server, (count, added) in mcp_tokens_per_server().items():
        print(f"prompt size: MCP server {server} adds {count} tools ≈ {added:,} tokens")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
