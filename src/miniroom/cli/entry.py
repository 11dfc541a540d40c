"""The `miniroom` console script: `--version` answers before anything heavy is imported."""

import os
import sys

SIGPIPE_EXIT = 141  # 128 + SIGPIPE: what a shell reports for a program whose reader went away


def main() -> int:
    try:
        if sys.argv[1:] == ["--version"]:  # scripts call this often; it must cost little more than Python
            from miniroom import __version__

            print(f"miniroom {__version__}")
            return 0
        from miniroom.cli.main import main as run_command_line

        return run_command_line()
    except BrokenPipeError:
        # The reader of stdout went away (`miniroom run --json x | head -1`): stop quietly, as `cat` does.
        # stdout points at /dev/null so that the interpreter's last flush at exit cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT
