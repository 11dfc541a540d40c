"""`miniroom sessions list|show`: what is stored, and what it cost."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path

from miniroom.cli.common import money, working_folder
from miniroom.cli.render import first_line
from miniroom.engine import Session, find_session_path, list_sessions
from miniroom.llm import AssistantMessage, ToolResultMessage, UserMessage, agent_dir_from_env


def _list(agent_dir: Path, args: argparse.Namespace) -> int:
    infos = list_sessions(agent_dir, None if args.all else working_folder(args))
    if not infos:
        print("No sessions yet." if args.all else "No sessions in this folder yet (try --all).")
        return 0
    for info in infos:
        for warning in info.warnings:
            print(f"miniroom: {warning}", file=sys.stderr)
        when = datetime.fromtimestamp(info.modified).strftime("%Y-%m-%d %H:%M")
        where = f"  {info.cwd}" if args.all else ""
        print(f"{info.id}  {when}  {info.message_count:>4} msgs  {first_line(info.first_prompt, 60)}{where}")
    return 0


def _show(agent_dir: Path, session_id: str) -> int:
    session = Session.load(find_session_path(agent_dir, session_id))
    for warning in session.load_report.warnings(session.path):
        print(f"miniroom: {warning}", file=sys.stderr)
    print(f"session {session.id}\nfolder  {session.cwd}\nfile    {session.path}\n")
    for message in session.history():
        if isinstance(message, UserMessage):
            print(f"user: {first_line(message.text)}")
        elif isinstance(message, AssistantMessage):
            calls = ", ".join(call.name for call in message.tool_calls)
            print(
                f"assistant ({message.model}): {first_line(message.text) or '—'}"
                + (f" [{calls}]" if calls else "")
            )
        elif isinstance(message, ToolResultMessage) and message.is_error:
            print(f"  {message.tool_name} error: {first_line(message.text)}")
    total = session.total_usage()
    print(
        f"\ntokens: input {total.input:,}, output {total.output:,}, cache read {total.cache_read:,}, "
        f"cache write {total.cache_write:,}\ncost: {money(total.cost)}"
    )
    return 0


def sessions_command(args: argparse.Namespace) -> int:
    agent_dir = agent_dir_from_env(os.environ)
    if args.sessions_command == "list":
        return _list(agent_dir, args)
    return _show(agent_dir, args.session_id)
