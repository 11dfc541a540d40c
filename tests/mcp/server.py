"""A small MCP server for the tests, written with the SDK: `python server.py stdio|http|sse [port]`.

Its tools return text, an image, resources, an error, a slow answer, one huge line, and add a tool
(`tools/list_changed`).
With MCP_TEST_PID_FILE set it writes its pid there, and with MCP_TEST_CHILD_PID_FILE it starts a child that
sleeps, writing the child's pid there: a test can then check that nothing of its process tree is left.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
server = MCPServer("miniroom-test")


@server.tool()
def echo(text: str) -> str:
    """Echo text back."""
    return text


@server.tool()
def image() -> Image:
    """Return a 1x1 PNG."""
    return Image(data=PNG_1PX, format="png")


@server.tool()
def mixed() -> list[TextContent | EmbeddedResource | ResourceLink]:
    """Return text, an embedded resource and a resource link."""
    return [
        TextContent(text="hello"),
        EmbeddedResource(
            resource=TextResourceContents(uri="file:///notes.txt", mime_type="text/plain", text="body")
        ),
        ResourceLink(name="notes", uri="file:///notes.txt", mime_type="text/plain"),
    ]


@server.tool()
def fail(message: str = "boom") -> str:
    """Always fails."""
    raise ToolError(message)


@server.tool()
async def slow(seconds: float = 5.0) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def big(megabytes: int = 50) -> str:
    """Answer with one line of this many megabytes."""
    return "x" * (megabytes * 1024 * 1024 - 3) + "END"


@server.tool()
async def add_tool(ctx: Context, name: str = "extra") -> str:
    """Add a tool, then say the tool list changed."""

    def extra() -> str:
        return "extra!"

    server.add_tool(extra, name=name, description="Added while connected.")
    await ctx.session.send_tool_list_changed()
    return "added"


@server.tool()
def whoami(ctx: Context) -> dict[str, Any]:
    """What the server sees of its environment, folder and request headers."""
    headers = ctx.headers or {}
    secrets = [name for name in ("MINIROOM_API_TOKEN", "MINI_API_KEY") if name in os.environ]
    return {
        "greeting": os.environ.get("GREETING"),
        "cwd": os.getcwd(),
        "authorization": headers.get("authorization"),
        "secrets": secrets,
    }


def _note_pids() -> None:
    if pid_file := os.environ.get("MCP_TEST_PID_FILE"):
        Path(pid_file).write_text(str(os.getpid()))
    if child_file := os.environ.get("MCP_TEST_CHILD_PID_FILE"):
        child = subprocess.Popen(["sleep", "1002"])
        Path(child_file).write_text(str(child.pid))


if __name__ == "__main__":
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    _note_pids()
    if transport == "stdio":
        server.run()
    elif transport == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
