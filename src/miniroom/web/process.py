"""Child processes of the services (ScriptFetch and ScriptSearch commands, the Nodriver venv and its
browser), started as every child is (`tools.process`), with the non-interactive settings.

They run outside the agents' sandbox: they are programs the user configured (fetch.yml, search.yml), which
need the network and often credentials of their own; what reaches them from the model is one argument."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from miniroom.tools import MAX_KEPT_BYTES, NON_INTERACTIVE_ENV, ChildSpec, Finished, StartFailure
from miniroom.tools import run_process as run_child


class ProcessFailure(Exception):
    """The process could not start, ran too long, or wrote too much; the message says which."""


async def run_process(
    argv: Sequence[str], *, env: Mapping[str, str], seconds: float, cwd: Path | None = None
) -> Finished:
    """Run `argv` to its end within `seconds`; its process group dies on timeout or cancellation."""
    spec = ChildSpec(argv, {**env, **NON_INTERACTIVE_ENV}, cwd)
    try:
        # A browser left behind dies; a command writing without end is stopped at the cap.
        finished = await run_child(spec, seconds, end_group=True, stop_when_full=True)
    except StartFailure as error:
        raise ProcessFailure(str(error)) from None
    if finished.timed_out:
        raise ProcessFailure(f"{Path(argv[0]).name} ran longer than {seconds:g} s and was stopped")
    if finished.overflowed:
        raise ProcessFailure(f"the command wrote more than {MAX_KEPT_BYTES // 1024 // 1024} MB")
    return finished
