"""`miniroom` entry point: parses the command line and hands off to one command module, imported lazily."""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Callable, Sequence

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
    run.add_argument(
        "--minimal",
        action="store_true",
        help="minimal mode: a short prompt and one bash tool; the other tools through miniroom-agent",
    )
    run.add_argument(
        "--approve",
        action="append",
        metavar="RULE",
        help="accept calls this rule matches (as hooks.yml's ask: rules are written, e.g. bash or "
        "'write(.env)') when an ask rule or hook wants approval; repeat for more rules",
    )
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

    init = commands.add_parser(
        "init", help="write a config.yaml (one agent, a lobby room) and .miniroom/ defaults to start from"
    )
    init.add_argument("dir", nargs="?", metavar="DIR", help="the project folder (default: the current one)")

    serve = commands.add_parser("serve", help="agents answer in chat rooms (embedded or Matrix)")
    serve.add_argument(
        "--config", metavar="FILE", help="config.yaml (default: $MINIROOM_CONFIG or ./config.yaml)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="web chat address (embedded rooms)")
    serve.add_argument("--port", type=int, default=8765, help="web chat port (embedded rooms)")
    serve.add_argument(
        "--agents",
        metavar="NAMES",
        help="host only these agents and teams (comma-separated); other instances host the rest",
    )
    serve.add_argument(
        "--no-api",
        action="store_true",
        help="serve without the API agents' shells call with miniroom-agent (no minimal mode then)",
    )
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

    mcp = commands.add_parser("mcp", help="the project's MCP servers (.miniroom/mcp.yml)")
    mcp_commands = mcp.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)
    mcp_list = mcp_commands.add_parser("list", help="connect each server and show its state and tools")
    mcp_list.add_argument("--cwd", metavar="DIR", help="the project folder (default: the current one)")

    profile = commands.add_parser("profile", help="show how the agent's settings resolve")
    profile_commands = profile.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    show_profile = profile_commands.add_parser("show", help="each setting's value and its source, as JSON")
    show_profile.add_argument("name", nargs="?", metavar="NAME", help="a profile of .miniroom/miniagent.yml")
    show_profile.add_argument("--model", metavar="ALIAS", help="apply this config.yaml model's variables")
    show_profile.add_argument("--cwd", metavar="DIR")
    _add_web_commands(commands)
    return parser


def _add_web_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    web = commands.add_parser("web", help="try the fetch and search services of .miniroom/")
    web_commands = web.add_subparsers(dest="web_command", metavar="ACTION", required=True)
    test = web_commands.add_parser("test", help="run one saved service once: ok, latency, a sample")
    test.add_argument("kind", choices=["fetch", "search"], help="fetch.yml or search.yml")
    test.add_argument("name", help="the service's name in that file")
    test.add_argument("target", nargs="?", help="the page to fetch or the query (default: a simple one)")
    test.add_argument("--model", metavar="ALIAS", help="expand $VAR with this config.yaml model's variables")
    test.add_argument("--json", action="store_true", help="print the result as a JSON object")
    test.add_argument("--cwd", metavar="DIR", help="the project folder (default: the current one)")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _command(args)
    except UserError as error:  # the one place a command's fixable problem becomes a message
        from miniroom.cli.common import fail

        return fail(str(error))


# Each command's module and function: only the module of the command that runs is imported.
COMMANDS = {
    "run": ("miniroom.cli.run", "run_command"),
    "chat": ("miniroom.cli.chat", "chat_command"),
    "sessions": ("miniroom.cli.sessions", "sessions_command"),
    "init": ("miniroom.cli.init", "init_command"),
    "serve": ("miniroom.cli.serve", "serve_command"),
    "config": ("miniroom.cli.settings", "config_check_command"),
    "mcp": ("miniroom.cli.mcp_list", "mcp_list_command"),
    "profile": ("miniroom.cli.settings", "profile_show_command"),
    "web": ("miniroom.cli.web", "web_test_command"),
}


def _command(args: argparse.Namespace) -> int:
    if args.command not in COMMANDS:
        build_parser().print_help(sys.stderr)
        return 2
    module, name = COMMANDS[args.command]
    command: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), name)
    if not gc.isenabled():  # paused by the console script for the imports (see cli/entry.py)
        gc.freeze()
        gc.enable()
    return command(args)


if __name__ == "__main__":
    sys.exit(main())
