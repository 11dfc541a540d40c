"""A turn cut short by a restart runs again from the prompt its session already holds."""

from __future__ import annotations

from pathlib import Path

from miniroom.engine import Session
from miniroom.llm import AssistantMessage, TextContent, UserMessage
from miniroom.rooms.runtime.turns import rewind_to_prompt


def test_a_prompt_stored_with_a_hooks_context_is_found_again(tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path)
    session.append_message(UserMessage([TextContent("what changed?"), TextContent("on branch main")]))
    session.append_message(AssistantMessage([TextContent("half an ans")]))
    path = session.path
    session.close()
    assert not rewind_to_prompt(path, None, "something else")
    assert rewind_to_prompt(path, None, "what changed?")
    resumed = Session.load(path).messages()
    assert [message.role for message in resumed] == ["user"]  # the partial answer is on a side branch
