"""The `miniroom` console script: `--version` answers before anything heavy is imported."""

import atexit
import contextlib
import gc
import os
import sys

SIGPIPE_EXIT = 141  # 128 + SIGPIPE: what a shell reports for a program whose reader went away


def main() -> int:
    if sys.argv[1:] == ["--version"]:  # scripts call this often; it must cost little more than Python
        from miniroom import __version__

        print(f"miniroom {__version__}")
        return 0
    # Importing a command allocates thousands of objects and frees none: the collector's passes over them
    # are wasted. It resumes, with those objects frozen out of its passes, when the command starts.
    gc.disable()
    try:
        from miniroom.cli.main import main as run_command_line

        code = run_command_line()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of stdout went away (`miniroom run --json x | head -1`): stop quietly, as `cat` does.
        # stdout points at /dev/null so that the interpreter's last flush at exit cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT
    return end_process(code)


def end_process(code: int) -> int:
    """Ends a finished command at once: tearing down the interpreter's few hundred modules costs a one-shot
    turn about a tenth of its CPU and saves nothing, since every file it wrote is flushed and closed.

    Exit handlers still run (logging's flush among them) and the standard streams are flushed. While a
    thread other than the main one runs, the usual exit waits for it instead."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return code
    # The atexit module has no public call that runs the handlers: registering `os._exit` as a handler
    # instead would skip every handler registered before it, which runs after it (last in, first out).
    atexit._run_exitfuncs()
    with contextlib.suppress(OSError):  # what exit handlers print; a closed stream has nobody left to tell
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)
