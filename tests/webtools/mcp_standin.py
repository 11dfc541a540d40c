"""A stand-in for Playwright's MCP server (`@playwright/mcp --port N`): Streamable HTTP JSON-RPC at /mcp with
`browser_navigate`, `browser_wait_for`, `browser_evaluate` and `browser_snapshot`, answering in the same
markdown sections. It loads pages with a plain GET instead of a browser."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.webtools.servers import Answer, Seen

SESSION = "standin-session-1"
TOOLS = ("browser_navigate", "browser_wait_for", "browser_evaluate", "browser_snapshot")


class PlaywrightMcpStandIn:
    def __init__(self, *, evaluate: bool = True, multiline_events: bool = False) -> None:
        self.evaluate = evaluate
        self.indent = 1 if multiline_events else None
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.page_url = ""
        self.html = ""

    def __call__(self, seen: Seen) -> Answer:
        if seen.path != "/mcp":
            return Answer.of("text/plain", "not found", 404)
        if seen.method == "DELETE":
            return Answer()
        if seen.method == "GET":  # a stream of the server's own messages: this server sends none
            return Answer.of("text/plain", "Method Not Allowed", 405)
        message = seen.json()
        if message["method"] == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "Playwright", "version": "0.0.83"}}  # fmt: skip
            answer = Answer.json({"jsonrpc": "2.0", "id": message["id"], "result": result})
            return Answer(200, answer.body, {**answer.headers, "Mcp-Session-Id": SESSION})
        if seen.headers.get("mcp-session-id") != SESSION:
            return Answer.json({"error": "no session"}, 400)
        if "id" not in message:  # a notification
            return Answer(202)
        if message["method"] == "tools/list":
            return self._event(message["id"], {"tools": [_tool(name) for name in TOOLS]})
        name, arguments = message["params"]["name"], message["params"]["arguments"]
        self.calls.append((name, arguments))
        text, is_error = self._tool(name, arguments)
        return self._event(message["id"], {"content": [{"type": "text", "text": text}], "isError": is_error})

    def _event(self, request_id: int, result: dict[str, Any]) -> Answer:
        """The answer as one SSE event; with `multiline_events`, its JSON is spread over several data lines,
        which the event's reader joins with line breaks."""
        event = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}, indent=self.indent)
        data = "".join(f"data: {line}\n" for line in event.splitlines())
        return Answer.of("text/event-stream", f"event: message\n{data}\n")

    def _tool(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if name == "browser_navigate":
            with urllib.request.urlopen(arguments["url"], timeout=30) as response:
                self.page_url, self.html = response.url, response.read().decode()
            return f"### Ran Playwright code\nawait page.goto('{self.page_url}');\n\n{self._state()}", False
        if name == "browser_wait_for":
            return f"### Result\nWaited for {arguments['time']}", False
        if name == "browser_evaluate" and self.evaluate:
            return (
                f"### Result\n{json.dumps(self.html)}\n\n### Ran Playwright code\nawait page.evaluate()",
                False,
            )
        if name == "browser_snapshot":
            return (
                f'{self._state()}\n- Page Snapshot:\n```yaml\n- heading "Asyncio tasks" [level=1]\n```',
                False,
            )
        return f"### Error\nTool {name!r} not found", True

    def _state(self) -> str:
        return f"### Page state\n- Page URL: {self.page_url}\n- Page Title: Tasks"


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}}
