"""The MCP SDK is heavy to import: only the connection and what it uses import it, and nothing outside
`mcp/` imports those but the RemoteBrowser fetch service (itself loaded only when one fetches), so only a
session with an enabled server pays for it (`tests/test_architecture.py` places `mcp/` and `hooks/` in the
layers)."""

from __future__ import annotations

from pathlib import Path

import miniroom.hooks
import miniroom.mcp
from tests.import_graph import imports
from tests.runtime.test_layers import forbidden_imports

MCP = Path(miniroom.mcp.__file__).parent
HOOKS = Path(miniroom.hooks.__file__).parent
SDK = ("mcp", "mcp_types", "httpx2", "anyio")
SDK_MODULES = {"connection.py", "session.py", "stdio.py", "results.py", "tool.py"}
# Loaded by name (`web.service_types`) when a RemoteBrowser service fetches, which speaks MCP.
LAZY_IMPORTERS = {"web/fetchers/remote.py"}


def test_only_the_connection_and_its_helpers_import_the_sdk() -> None:
    assert {entry.split(":")[0] for entry in forbidden_imports(MCP, SDK)} == SDK_MODULES
    assert forbidden_imports(HOOKS, SDK) == set()


def test_the_rest_of_miniroom_reaches_the_connection_only_lazily() -> None:
    source = MCP.parent
    lazy = {f"miniroom.mcp.{name.removesuffix('.py')}" for name in SDK_MODULES}
    importers = {
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if path.parent != MCP and imports(path) & lazy
    }
    assert importers == LAZY_IMPORTERS
    manager = (MCP / "manager.py").read_text()
    # imported inside McpTools.connect, at a session's first request
    assert "    from miniroom.mcp.connection import ServerConnection  # the SDK" in manager
