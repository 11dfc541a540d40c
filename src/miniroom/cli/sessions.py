"""`miniroom sessions list|show`: what is stored, and what it cost."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from miniroom.agent import STOP_NOTE_TYPE
from miniroom.cli.common import money, working_folder
from miniroom.cli.render import first_line
from miniroom.engine import (
    CUSTOM_ENTRY,
    Session,
    SessionInfo,
    child_sessions,
    find_session_path,
    list_sessions,
)
from miniroom.llm import AssistantMessage, ToolResultMessage, Usage, UserMessage, agent_dir_from_env


def _family_order(infos: list[SessionInfo]) -> list[tuple[SessionInfo, bool]]:
    """Each session, a subagent's right after its parent (marked True); a child whose parent is not listed
    stands on its own."""
    listed = {info.id for info in infos}
    children: dict[str, list[SessionInfo]] = {}
    for info in infos:
        if info.parent in listed:
            children.setdefault(info.parent, []).append(info)
    ordered: list[tuple[SessionInfo, bool]] = []
    for info in infos:
        if info.parent not in listed:
            ordered.append((info, False))
            ordered += [(child, True) for child in children.get(info.id, [])]
    return ordered


def _list(agent_dir: Path, args: argparse.Namespace) -> int:
    infos = list_sessions(agent_dir, None if args.all else working_folder(args))
    if not infos:
        print("No sessions yet." if args.all else "No sessions in this folder yet (try --all).")
        return 0
    for info, is_child in _family_order(infos):
        for warning in info.warnings:
            print(f"miniroom: {warning}", file=sys.stderr)
        when = datetime.fromtimestamp(info.modified).strftime("%Y-%m-%d %H:%M")
        where = f"  {info.cwd}" if args.all else ""
        if is_child:
            label = f"  ↳ subagent: {first_line(info.description, 56)}"
        else:
            label = first_line(info.first_prompt, 60)
        print(f"{info.id}  {when}  {info.message_count:>4} msgs  {label}{where}")
    return 0


def _spend(usage: Usage) -> str:
    return f"↑{usage.input:,} ↓{usage.output:,} · {money(usage.cost)}"


def _show_entry(session: Session, entry: dict[str, Any]) -> None:
    if entry["type"] == CUSTOM_ENTRY and entry.get("customType") == STOP_NOTE_TYPE:
        print(f"⏹ {first_line(str((entry.get('data') or {}).get('note', '')))}")
        return
    if entry["type"] != "message":
        return
    message = session.message_of(entry)
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


def _show(agent_dir: Path, session_id: str) -> int:
    session = Session.load(find_session_path(agent_dir, session_id), whole=True)  # every damaged line named
    for warning in session.load_report.warnings(session.path):
        print(f"miniroom: {warning}", file=sys.stderr)
    print(f"session {session.id}\nfolder  {session.cwd}\nfile    {session.path}")
    if session.parent_id is not None:
        print(f"subagent of session {session.parent_id}: {session.header.get('description', '')}")
    print()
    for entry in session.branch():
        _show_entry(session, entry)
    children = child_sessions(session.path, session.id)
    if children:
        print("\nsubagents:")
        for child in children:
            print(f"  {child.id}  {first_line(child.description, 50)}  {_spend(child.usage or Usage())}")
    total = session.total_usage()
    print(
        f"\ntokens: input {total.input:,}, output {total.output:,}, cache read {total.cache_read:,}, "
        f"cache write {total.cache_write:,}\ncost: {money(total.cost)}"
        + (" (its subagents included)" if children else "")
    )
    return 0


def sessions_command(args: argparse.Namespace) -> int:
    agent_dir = agent_dir_from_env(os.environ)
    if args.sessions_command == "list":
        return _list(agent_dir, args)
    return _show(agent_dir, args.session_id)
