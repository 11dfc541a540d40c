"""Real MCP servers for the tests: the SDK-written `server.py` over stdio, HTTP and SSE on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agent_runs import write_settings
from tests.runtime.serve_process import free_port

SERVER = Path(__file__).with_name("server.py")
STDIO_ARGV = [sys.executable, str(SERVER), "stdio"]
START_SECONDS = 60.0


def stdio_entry(**extra: Any) -> dict[str, Any]:
    return {"type": "stdio", "command": sys.executable, "args": [str(SERVER), "stdio"], **extra}


def write_mcp(project: Path, servers: dict[str, Any]) -> Path:
    """`.miniroom/mcp.yml` listing `servers` (JSON is YAML too)."""
    return write_settings(project, "mcp.yml", json.dumps({"servers": servers}, indent=2))


@dataclass
class RemoteServer:
    """`server.py` serving one transport on loopback; `url` is its endpoint."""

    url: str
    process: subprocess.Popen[bytes]


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the test MCP server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the test MCP server did not listen on port {port} within {START_SECONDS:g} s")


def _serve(transport: str, path: str) -> Iterator[RemoteServer]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), transport, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_for_port(port, process)
        yield RemoteServer(f"http://127.0.0.1:{port}{path}", process)
    finally:
        process.kill()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def http_server() -> Iterator[RemoteServer]:
    yield from _serve("http", "/mcp")


@pytest.fixture(scope="module")
def sse_server() -> Iterator[RemoteServer]:
    yield from _serve("sse", "/sse")


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool results a request carries, in either protocol, as {"text", "images", "is_error"}."""
    found = []
    for message in body["messages"]:
        if message["role"] == "tool":  # OpenAI: one message per result
            found.append({"text": message["content"], "images": 0, "is_error": None})
            continue
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                parts = block["content"] if isinstance(block["content"], list) else []
                text = "".join(p.get("text", "") for p in parts) if parts else str(block["content"])
                images = sum(p.get("type") == "image" for p in parts)
                found.append({"text": text, "images": images, "is_error": block.get("is_error", False)})
    return found


def tool_names(body: dict[str, Any]) -> list[str]:
    return [
        tool["function"]["name"] if "function" in tool else tool["name"] for tool in body.get("tools", [])
    ]
