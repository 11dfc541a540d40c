"""Minimal mode against standard mode, in the same run, as `miniroom run` really sends them.

1. Prompt size: the system prompt plus every tool schema of the first request (characters / 4 ≈ tokens).
   Budget: minimal mode at most 400 tokens in each protocol; exit 1 when over.
2. The same task in both modes: one identical script (the model works only through bash and
   `miniroom-agent`, which both modes have), reporting the input tokens of each request of the turn as the
   scripted provider counts them (the request's characters / 4), and their sum.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from prompt_size import PROTOCOLS, bench_env, measure, tokens

BUDGET_TOKENS = 400
NOTES = "# Notes\n\n" + "".join(f"- item {index}: keep it short\n" for index in range(40))


def bash(command: str) -> Reply:
    return Reply(tool_calls=[("bash", {"command": command})])


TASK = [  # read, search, edit and check a file: the agent's usual round, the same in both modes
    bash('miniroom-agent tools call files read \'{"path": "notes.md"}\''),
    bash('miniroom-agent tools call files grep \'{"pattern": "item 7"}\''),
    bash(
        "miniroom-agent tools call files edit "
        '\'{"path": "notes.md", "old_text": "item 7: keep it short", "new_text": "item 7: done"}\''
    ),
    bash("grep -c done notes.md"),
    Reply(text="Marked item 7 done."),
]


def run(api: str, replies: list[Reply], *args: str) -> list[dict[str, Any]]:
    """The bodies of the requests `miniroom run ARGS` sends in this protocol for the scripted `replies`."""
    miniroom = str(Path(sys.executable).with_name("miniroom"))
    with ScriptedProvider() as provider, tempfile.TemporaryDirectory() as folder:
        project = Path(folder, "project")
        project.mkdir()
        (project / "notes.md").write_text(NOTES, encoding="utf-8")
        env = bench_env(Path(folder), provider, api)
        provider.script(*replies)
        result = subprocess.run(
            [miniroom, "run", *args, "mark item 7 done in notes.md"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if result.returncode != 0:
            raise RuntimeError(f"miniroom run {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return [request.body for request in provider.requests]


def prompt_sizes(api: str) -> bool:
    """Print both modes' first requests; whether minimal mode is within its budget."""
    sizes = {}
    for mode, args in (("standard", ()), ("minimal", ("--minimal",))):
        system, schemas, per_tool = measure(run(api, [Reply(text="ok", usage=(1, 1, 0, 0))], *args)[0])
        sizes[mode] = (system, schemas, len(per_tool))
    standard, minimal = (tokens(system + schemas) for system, schemas, _ in sizes.values())
    within = minimal <= BUDGET_TOKENS
    print(
        f"prompt + schemas ({api}): standard {standard:,} tokens ({sizes['standard'][2]} tools) | "
        f"minimal {minimal:,} tokens (system {tokens(sizes['minimal'][0])}, bash schema "
        f"{tokens(sizes['minimal'][1])}) | {minimal / standard:.0%} of standard "
        f"(budget {BUDGET_TOKENS}) {'ok' if within else 'OVER BUDGET'}"
    )
    return within


def same_task(api: str) -> None:
    for mode, args in (("standard", ()), ("minimal", ("--minimal",))):
        per_request = [len(json.dumps(body, ensure_ascii=False)) // 4 for body in run(api, TASK, *args)]
        listed = ", ".join(f"{count:,}" for count in per_request)
        print(
            f"  same task, {mode:8} ({api}): input tokens per request {listed} | total {sum(per_request):,}"
        )


def main() -> int:
    within = True
    for api in PROTOCOLS:
        within = prompt_sizes(api) and within
        same_task(api)
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
