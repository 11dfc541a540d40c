"""Subagents and background tasks: the `agent`, `agent_start`, `agent_check` and `agent_stop` tools."""
