"""The built-in base system prompt and the facts appended to it."""

from __future__ import annotations

from datetime import date
from pathlib import Path

BASE_PROMPT = """\
You are mini, a coding agent working in the user's project. You read, write and run code with your tools.
- Inspect before you change: read files and search the code; don't guess.
- Make the smallest change that solves the task, in the project's style; then verify it.
- Prefer edit for changes to existing files; write for new files. Batch independent commands in parallel_bash.
- Paths are relative to the working folder; you cannot touch files outside it.
- Be concise. When done, say what you changed and how you checked it."""


# Kept short: it is in every request. The chat draws these blocks; a reply to one comes back as a message.
FORMS_PROMPT = """\
To offer choices, write a fenced block tagged agent.button (one option per line) or agent.form (one field \
per line: `Label` or `Label: choice | choice`); the answer comes as the next message."""


def sandbox_prompt(mode: str, network: bool) -> str:
    """What a sandboxed shell may do, so the model knows why a write, a download or a daemon fails."""
    writable = (
        "only /tmp is writable"
        if mode == "read-only"
        else (
            "only the working folder (not .git's config and hooks, .miniroom, CLAUDE.md, AGENTS.md) and /tmp "
            "are writable"
        )
    )
    reach = "the network is open" if network else "there is no network"
    return (
        f"Shell commands run in a sandbox: {writable}, the home folder is hidden, {reach}, and background "
        "jobs end when the command returns."
    )


def system_prompt(cwd: Path, base: str = BASE_PROMPT, today: date | None = None) -> str:
    return f"{base}\n\nWorking folder: {cwd}\nToday's date: {(today or date.today()).isoformat()}"


SUBAGENT_PROMPT = (
    "You are a subagent doing one task for another agent. Do it, then end with your final answer: "
    "it is all the other agent gets."
)
