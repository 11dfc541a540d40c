"""`miniroom` entry point: parses the command line and hands off to one command module, imported lazily."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from miniroom import __version__
from miniroom.config.errors import UserError


def _add_session_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model", "-m", help="provider/model[:thinking], e.g. anthropic/claude-sonnet-5:high"
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--continue",
        "-c",
        dest="continue_latest",
        action="store_true",
        help="resume this folder's latest session",
    )
    group.add_argument(
        "--session", "-s", dest="session_id", metavar="ID", help="resume the session with this id"
    )
    parser.add_argument("--cwd", metavar="DIR", help="working folder (default: the current one)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="miniroom", description="A self-hosted home for AI agents.")
    parser.add_argument("--version", action="version", version=f"miniroom {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser("run", help="run one prompt and print the final answer")
    _add_session_options(run)
    run.add_argument("--json", action="store_true", help="print one JSON event per line")
    run.add_argument("prompt", nargs="+", help="what the agent should do ('-' reads standard input)")

    chat = commands.add_parser("chat", help="talk with the agent interactively")
    _add_session_options(chat)

    sessions = commands.add_parser("sessions", help="list or show stored sessions")
    session_commands = sessions.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    listing = session_commands.add_parser("list", help="sessions of this folder, newest last")
    listing.add_argument("--all", action="store_true", help="sessions of every folder")
    listing.add_argument("--cwd", metavar="DIR")
    show = session_commands.add_parser("show", help="a session's messages and totals")
    show.add_argument("session_id", metavar="ID")

    serve = commands.add_parser("serve", help="agents answer in chat rooms (embedded or Matrix)")
    serve.add_argument(
        "--config", metavar="FILE", help="config.yaml (default: $MINIROOM_CONFIG or ./config.yaml)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="web chat address (embedded rooms)")
    serve.add_argument("--port", type=int, default=8765, help="web chat port (embedded rooms)")
    serve.add_argument(
        "--insecure",
        action="store_true",
        help="allow a --host other machines can reach without MINIROOM_API_TOKEN (anyone there can use it)",
    )

    config = commands.add_parser("config", help="check the project's settings files")
    config_commands = config.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = config_commands.add_parser("check", help="validate .miniroom/*.yml and config.yaml")
    check.add_argument("dir", nargs="?", metavar="DIR", help="the project folder (default: the current one)")
    check.add_argument("--config", metavar="FILE", help="config.yaml to check (default: DIR/config.yaml)")

    profile = commands.add_parser("profile", help="show how the agent's settings resolve")
    profile_commands = profile.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    show_profile = profile_commands.add_parser("show", help="each setting's value and its source, as JSON")
    show_profile.add_argument("name", nargs="?", metavar="NAME", help="a profile of .miniroom/miniagent.yml")
    show_profile.add_argument("--model", metavar="ALIAS", help="apply this config.yaml model's variables")
    show_profile.add_argument("--cwd", metavar="DIR")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _command(args)
    except UserError as error:  # the one place a command's fixable problem becomes a message
        from miniroom.cli.common import fail

        return fail(str(error))


def _command(args: argparse.Namespace) -> int:
    if args.command == "run":
        from miniroom.cli.run import run_command

        return run_command(args)
    if args.command == "chat":
        from miniroom.cli.chat import chat_command

        return chat_command(args)
    if args.command == "sessions":
        from miniroom.cli.sessions import sessions_command

        return sessions_command(args)
    if args.command == "serve":
        from miniroom.cli.serve import serve_command

        return serve_command(args)
    if args.command == "config":
        from miniroom.cli.settings import config_check_command

        return config_check_command(args)
    if args.command == "profile":
        from miniroom.cli.settings import profile_show_command

        return profile_show_command(args)
    build_parser().print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
