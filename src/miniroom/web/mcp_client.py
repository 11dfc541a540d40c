"""Just enough of an MCP client to call tools on a server over Streamable HTTP (JSON-RPC 2.0 POSTed to one
endpoint; answers come as JSON or as a Server-Sent Events stream).

Spec: https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
(`initialize`, the `Mcp-Session-Id` header, `notifications/initialized`, `tools/call`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from miniroom.web.http import check_status
from miniroom.web.services import ServiceFailure

PROTOCOL_VERSION = "2025-06-18"
SESSION_HEADER = "Mcp-Session-Id"
_ACCEPT = "application/json, text/event-stream"


class McpSession:
    """One initialized session with an MCP server at `url`."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http, self.url = http, url
        self.session_id: str | None = None
        self._next_id = 0

    async def initialize(self) -> None:
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "miniroom", "version": "1"},
        }
        await self.request("initialize", params)
        await self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> str:
        """The tool's text content; ServiceFailure when the server reports an error."""
        result = await self.request("tools/call", {"name": name, "arguments": dict(arguments)})
        text = "\n".join(
            part.get("text", "") for part in result.get("content", []) if isinstance(part, Mapping)
        )
        if result.get("isError"):
            raise ServiceFailure(f"the browser service's {name} failed: {' '.join(text.split())[:300]}")
        return text

    async def request(self, method: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}
        response = await self._post(message)
        answer = _answer(response, self._next_id)
        if "error" in answer:
            error = answer["error"] if isinstance(answer["error"], Mapping) else {}
            raise ServiceFailure(f"the browser service refused {method}: {error.get('message', error)}")
        result = answer.get("result")
        return result if isinstance(result, Mapping) else {}

    async def _post(self, message: Mapping[str, Any]) -> httpx.Response:
        headers = {"Accept": _ACCEPT, "MCP-Protocol-Version": PROTOCOL_VERSION}
        if self.session_id:
            headers[SESSION_HEADER] = self.session_id
        response = await self.http.post(self.url, json=message, headers=headers)
        await response.aread()
        check_status(response, response.text)
        self.session_id = response.headers.get(SESSION_HEADER, self.session_id)
        return response


def _answer(response: httpx.Response, request_id: int) -> Mapping[str, Any]:
    """The JSON-RPC answer to `request_id`, from a JSON body or from the SSE stream's `data:` lines."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        candidates = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    else:
        candidates = [response.text]
    for candidate in candidates:
        try:
            message = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(message, Mapping) and message.get("id") == request_id:
            return message
    raise ServiceFailure(f"the browser service gave no answer to request {request_id}")
