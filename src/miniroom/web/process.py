"""Child processes of the services (ScriptFetch and ScriptSearch commands, the Nodriver venv and its
browser): the tool environment, a process group the reaper knows before anything runs, a timeout that kills
the whole group, and output kept within bounds."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from miniroom.tools import GATE_ARGV, NON_INTERACTIVE_ENV, process_reaper

MAX_OUTPUT_BYTES = 16 * 1024 * 1024
_STDERR_TAIL = 500


class ProcessFailure(Exception):
    """The process could not start, ran too long, or wrote too much; the message says which."""


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: bytes
    stderr: bytes

    def stderr_tail(self) -> str:
        text = self.stderr.decode("utf-8", "replace").strip()
        return text[-_STDERR_TAIL:]


async def run_process(
    argv: Sequence[str], *, env: Mapping[str, str], seconds: float, cwd: Path | None = None
) -> Finished:
    """Run `argv` to its end within `seconds`; its process group dies on timeout or cancellation."""
    try:
        process = await asyncio.create_subprocess_exec(
            *GATE_ARGV,
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env={**env, **NON_INTERACTIVE_ENV},
            start_new_session=True,
        )
    except (OSError, ValueError) as error:  # ValueError: a NUL in an argument or the environment
        reason = getattr(error, "strerror", None) or error
        raise ProcessFailure(f"could not start {argv[0]}: {reason}") from None
    process_reaper().watch(process.pid)  # its own session: the group id is its pid
    try:
        assert process.stdin is not None
        process.stdin.write(b"go\n")  # the gate: nothing runs before the reaper knows the group
        process.stdin.close()
        stdout, stderr = await asyncio.wait_for(_collect(process), seconds)
    except TimeoutError:
        raise ProcessFailure(f"{Path(argv[0]).name} ran longer than {seconds:g} s and was stopped") from None
    finally:
        await _end_group(process)
    assert process.returncode is not None
    return Finished(process.returncode, stdout, stderr)


async def _collect(process: asyncio.subprocess.Process) -> tuple[bytes, bytes]:
    assert process.stdout is not None
    assert process.stderr is not None
    stdout, stderr = await asyncio.gather(_read_capped(process.stdout), _read_capped(process.stderr))
    await process.wait()
    return stdout, stderr


async def _read_capped(stream: asyncio.StreamReader) -> bytes:
    data = bytearray()
    while chunk := await stream.read(65536):
        data += chunk
        if len(data) > MAX_OUTPUT_BYTES:
            raise ProcessFailure(f"the command wrote more than {MAX_OUTPUT_BYTES // 1024 // 1024} MB")
    return bytes(data)


async def _end_group(process: asyncio.subprocess.Process) -> None:
    """Kill what is left of the group (background jobs too) and tell the reaper it is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            await process.wait()
    process_reaper().release(process.pid)
