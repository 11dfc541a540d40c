"""The `miniroom` console script: `--version` answers before anything heavy is imported."""

import sys


def main() -> int:
    if sys.argv[1:] == ["--version"]:  # scripts call this often; it must cost little more than Python itself
        from miniroom import __version__

        print(f"miniroom {__version__}")
        return 0
    from miniroom.cli.main import main as run_command_line

    return run_command_line()
