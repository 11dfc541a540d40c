"""agent_cli: `miniroom-agent`, the thin client an agent's shell commands call miniroom's API with.

Standard library only, and at start nothing else of miniroom: it runs in every script an agent writes, so its
start-up must cost little more than the interpreter's.
"""
