"""mcp layer: MCP servers from `.miniroom/mcp.yml`, their tools in the agent's tool set.

The MCP SDK is heavy to import, so only `connection` and the modules it uses import it, and only a session
with an enabled server imports `connection`, at its first message.
"""
