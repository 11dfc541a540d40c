"""mcp layer: MCP servers from `.miniroom/mcp.yml`, their tools in the agent's tool set.

The MCP SDK is heavy to import, so only `connection`, `session` and the modules they use import it, and only
a session with an enabled server imports `connection`, at its first message (and the RemoteBrowser fetch
service `session`, when it fetches).
"""
