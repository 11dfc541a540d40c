"""What every agent command shares: the working folder, building the agent, and user-facing failures."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from miniroom.agent import AgentOptions, CliMode, SessionChoice, build_agent
from miniroom.config.errors import UserError
from miniroom.engine import Agent
from miniroom.web import ensure_fetch_file


class CommandError(UserError):
    """A problem with the command line itself (a folder, the prompt, a name) the user can fix."""


def fail(message: str, code: int = 2) -> int:
    print(f"miniroom: {message}", file=sys.stderr)
    return code


def working_folder(args: argparse.Namespace) -> Path:
    folder = Path(args.cwd).expanduser() if getattr(args, "cwd", None) else Path.cwd()
    if not folder.is_dir():
        raise CommandError(f"--cwd {args.cwd}: no such folder.")
    return folder.resolve()


def agent_from_args(args: argparse.Namespace) -> Agent:
    """The agent the options name; its shell commands reach its other tools through `miniroom-agent`."""
    cwd = working_folder(args)
    choice = SessionChoice(continue_latest=args.continue_latest, session_id=args.session_id)
    ensure_fetch_file(cwd)
    command_line = CliMode(minimal=getattr(args, "minimal", False), tools_setting="the tool list")
    return build_agent(args.model, cwd, os.environ, choice, options=AgentOptions(command_line=command_line))


def money(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"
