"""Running one hook command: the event's JSON on stdin, stdout and stderr kept apart, its tree killed on
timeout or abort (`tools.process`, as for every child). Hooks run outside the agent's sandbox: they are the
project owner's own checks, kept in `.miniroom/hooks.yml`, which a sandboxed command cannot change."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from miniroom.tools import ChildSpec, Finished, StartFailure, run_process, shell_argv

MAX_CAPTURE_BYTES = 256 * 1024  # of stdout and of stderr each; a hook's answer is short


async def run_hook(
    command: str, stdin: bytes, cwd: Path, limit_seconds: float, env: Mapping[str, str]
) -> Finished:
    """Run `command` with the shell in `cwd`; running too long or an abort kills its whole process group."""
    spec = ChildSpec(shell_argv(command, env.get("PATH")), env, cwd, stdin=stdin)
    try:
        return await run_process(spec, limit_seconds, max_bytes=MAX_CAPTURE_BYTES)
    except StartFailure as error:
        return Finished(None, failure=f"could not start: {error.reason}")
