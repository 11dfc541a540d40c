"""Where a project lists its MCP servers: light enough to check for the file without reading it."""

from pathlib import Path

MCP_FILE = Path(".miniroom") / "mcp.yml"
