"""Where `mcp/` and `hooks/` sit: below `agent/`, above the engine and the tools; the MCP SDK only behind the
connection, which only a session with an enabled server imports."""

from __future__ import annotations

from pathlib import Path

import miniroom.hooks
import miniroom.mcp
from tests.runtime.test_layers import forbidden_imports, imports

MCP = Path(miniroom.mcp.__file__).parent
HOOKS = Path(miniroom.hooks.__file__).parent
ABOVE = tuple(
    f"miniroom.{package}" for package in ("agent", "rooms", "transports", "server", "cli", "web", "minimal")
)
SDK = ("mcp", "mcp_types", "httpx2", "anyio")
# The modules that import the SDK; with `tool.py` (which imports results) nothing else may import them.
SDK_IMPORTERS = {"connection.py", "stdio.py", "results.py"}
SDK_MODULES = {*SDK_IMPORTERS, "tool.py"}


def test_mcp_and_hooks_import_nothing_above_them() -> None:
    assert forbidden_imports(MCP, ABOVE) == set()
    assert forbidden_imports(HOOKS, ABOVE) == set()


def test_hooks_and_mcp_know_nothing_of_each_other() -> None:
    assert forbidden_imports(MCP, ("miniroom.hooks",)) == set()
    assert forbidden_imports(HOOKS, ("miniroom.mcp",)) == set()


def test_only_the_connection_and_its_helpers_import_the_sdk() -> None:
    assert {entry.split(":")[0] for entry in forbidden_imports(MCP, SDK)} == SDK_IMPORTERS
    assert forbidden_imports(HOOKS, SDK) == set()


def test_the_rest_of_miniroom_reaches_the_connection_only_lazily() -> None:
    source = Path(miniroom.mcp.__file__).parent.parent
    lazy = {f"miniroom.mcp.{name.removesuffix('.py')}" for name in SDK_MODULES}
    importers = {
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if path.parent != MCP and imports(path) & lazy
    }
    assert importers == set()
    manager = (MCP / "manager.py").read_text()
    # imported inside McpTools.connect, at a session's first request
    assert "    from miniroom.mcp.connection import ServerConnection  # the SDK" in manager
