"""JSONL sessions: append-only tree, torn lines recovered, interrupted tool calls repaired."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from miniroom.engine.session import INTERRUPTED_TOOL_TEXT, Session, SessionError
from miniroom.engine.session_index import (
    directory_for_cwd,
    find_session_path,
    latest_session_path,
    list_sessions,
)
from miniroom.llm.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_entries_form_a_tree_in_pi_v3_format(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "s", tmp_path)
    first = session.append_message(UserMessage.of_text("hello"))
    second = session.append_message(AssistantMessage([TextContent("hi")], model="m"))
    session.close()
    header, *entries = _lines(session.path)
    assert header == {
        "type": "session",
        "version": 3,
        "id": session.id,
        "timestamp": header["timestamp"],
        "cwd": str(tmp_path),
    }
    assert entries[0]["parentId"] is None
    assert entries[1]["parentId"] == first["id"]
    assert entries[1]["id"] == second["id"]
    assert entries[1]["message"]["role"] == "assistant"


def test_each_entry_is_on_disk_as_soon_as_it_is_appended(tmp_path: Path) -> None:
    with Session.create(tmp_path, tmp_path) as session:
        session.append_message(UserMessage.of_text("one"))
        assert len(_lines(session.path)) == 2  # not closed yet: flushed per entry


def test_resume_rebuilds_the_conversation(tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path)
    session.append_message(UserMessage.of_text("question"))
    session.append("model_change", provider="p", modelId="m")
    session.append_message(AssistantMessage([TextContent("answer")]))
    session.close()
    loaded = Session.load(session.path)
    assert [m.role for m in loaded.messages()] == ["user", "assistant"]
    assert loaded.latest("model_change") is not None
    assert loaded.messages()[1].content[0] == TextContent("answer")


def test_torn_last_line_is_skipped_reported_and_never_merged(tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path)
    session.append_message(UserMessage.of_text("kept"))
    session.close()
    with session.path.open("a") as handle:
        handle.write('{"type":"message","id":"dead","parentId":null,"mess')  # killed mid-write
    before = session.path.read_bytes()
    loaded = Session.load(session.path)
    assert [m.role for m in loaded.messages()] == ["user"]
    assert (loaded.load_report.torn_line, loaded.load_report.damaged_lines) == (3, [])
    assert loaded.load_report.warnings(session.path) == []  # an expected loss: nothing to warn about
    loaded.append_message(AssistantMessage([TextContent("after")]))
    loaded.close()
    after = session.path.read_bytes()
    assert after.startswith(before)  # never rewritten in place: only appended
    again = Session.load(session.path)
    assert [m.role for m in again.messages()] == ["user", "assistant"]


def test_interrupted_tool_call_is_repaired_with_an_error_result(tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path)
    session.append_message(UserMessage.of_text("run it"))
    calls = [ToolCall("c1", "bash", {"command": "ls"}), ToolCall("c2", "read", {"path": "x"})]
    session.append_message(AssistantMessage(list(calls), stop_reason="tool_use"))
    session.append_message(ToolResultMessage("c1", "bash", [TextContent("ok")]))
    session.close()
    with Session.load(session.path) as loaded:
        assert loaded.repair_interrupted_tool_calls() == ["c2"]
        last = loaded.messages()[-1]
        assert isinstance(last, ToolResultMessage)
        assert (last.tool_call_id, last.is_error, last.text) == ("c2", True, INTERRUPTED_TOOL_TEXT)
        assert loaded.repair_interrupted_tool_calls() == []


def test_a_file_that_is_not_a_session_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(SessionError, match="not a session file"):
        Session.load(path)
    with pytest.raises(SessionError, match="Cannot read session file"):
        Session.load(tmp_path / "missing.jsonl")


def test_sessions_are_found_per_folder_and_by_id_prefix(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    project = tmp_path / "project"
    project.mkdir()
    older = Session.create(directory_for_cwd(agent_dir, project), project)
    older.append_message(UserMessage.of_text("first question"))
    newer = Session.create(directory_for_cwd(agent_dir, project), project)
    newer.append_message(UserMessage.of_text("second question"))
    older.close()
    newer.close()
    import os

    os.utime(older.path, (1, 1))
    assert latest_session_path(agent_dir, project) == newer.path
    assert find_session_path(agent_dir, older.id[:8]) == older.path
    infos = list_sessions(agent_dir, project)
    assert [i.first_prompt for i in infos] == ["first question", "second question"]
    assert latest_session_path(agent_dir, tmp_path) is None
    with pytest.raises(SessionError, match="No session with id 'nope'"):
        find_session_path(agent_dir, "nope")


def test_a_rewind_continues_from_an_earlier_entry_and_the_file_remembers_it(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "s", tmp_path)
    prompt = session.append_message(UserMessage.of_text("question"))
    session.append_message(AssistantMessage([TextContent("half an answer")], model="m"))
    session.rewind(prompt["id"], "run again")
    session.append_message(AssistantMessage([TextContent("the whole answer")], model="m"))
    session.close()
    loaded = Session.load(session.path)
    assert [type(m).__name__ for m in loaded.messages()] == ["UserMessage", "AssistantMessage"]
    assert loaded.messages()[-1].content == [TextContent("the whole answer")]
    assert len([e for e in loaded.entries if e["type"] == "message"]) == 3, "the abandoned entry is kept"


def test_a_rewind_to_an_unknown_entry_names_the_file(tmp_path: Path) -> None:
    with (
        Session.create(tmp_path / "s", tmp_path) as session,
        pytest.raises(SessionError, match=r"s/.*\.jsonl has no entry nope to continue from"),
    ):
        session.rewind("nope", "run again")


def _conversation(tmp_path: Path) -> Session:
    """Six entries on lines 2-7: a question, a tool call and its result, an answer, a question, an answer."""
    session = Session.create(tmp_path, tmp_path)
    session.append_message(UserMessage.of_text("first question"))
    session.append_message(AssistantMessage([ToolCall("c1", "ls", {"path": "."})], stop_reason="tool_use"))
    session.append_message(ToolResultMessage("c1", "ls", [TextContent("a.txt")]))
    session.append_message(AssistantMessage([TextContent("first answer")]))
    session.append_message(UserMessage.of_text("second question"))
    session.append_message(AssistantMessage([TextContent("second answer")]))
    session.close()
    return session


def _damage(path: Path, line: int, old: str, new: str) -> None:
    lines = path.read_text().split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    path.write_text("\n".join(lines))


def _texts(messages: list[Message]) -> list[str]:
    return [getattr(m, "text", "") or m.role for m in messages]


@pytest.mark.parametrize(
    ("old", "new"),
    [('"message":{', '"message";{'), ('"role":"assistant"', '"role":"assistanT"'), ('"id":"', '"iD":"')],
    ids=["broken-json", "unknown-role", "no-id"],
)
def test_a_damaged_middle_line_is_named_and_the_rest_keeps_its_order(
    tmp_path: Path, old: str, new: str
) -> None:
    session = _conversation(tmp_path)
    _damage(session.path, 5, old, new)  # the first answer
    with Session.load(session.path) as loaded:
        assert loaded.load_report.warnings(session.path) == [
            f"{session.path} line 5 is damaged and was skipped"
        ]
        expected = ["first question", "assistant", "a.txt", "second question", "second answer"]
        assert _texts(loaded.history()) == expected
        assert _texts(loaded.messages()) == expected
        loaded.append_message(UserMessage.of_text("third question"))  # the leaf goes on from the last entry
        assert _texts(loaded.messages())[-2:] == ["second answer", "third question"]


def test_an_entry_of_a_type_miniroom_does_not_know_is_named_and_kept(tmp_path: Path) -> None:
    session = _conversation(tmp_path)
    _damage(session.path, 5, '"type":"message"', '"type":"messagf"')  # one byte of the first answer
    with Session.load(session.path) as loaded:
        assert loaded.load_report.warnings(session.path) == [
            f"{session.path} line 5 is an entry of a type miniroom does not know ('messagf'): kept in the "
            "file, left out of the conversation"
        ]
        expected = ["first question", "assistant", "a.txt", "second question", "second answer"]
        assert _texts(loaded.history()) == expected
    assert '"type":"messagf"' in session.path.read_text(encoding="utf-8")


def test_an_entry_whose_parent_is_damaged_attaches_to_the_last_readable_entry(tmp_path: Path) -> None:
    session = _conversation(tmp_path)
    parent_id = _lines(session.path)[4]["id"]
    _damage(session.path, 5, f'"id":"{parent_id}"', f'"id":"{parent_id[:-1]}!"')  # readable, but renamed
    loaded = Session.load(session.path)
    assert len(loaded.history()) == 6  # a changed id loses nothing: its child attaches to it anyway
    _damage(session.path, 4, '"toolCallId"', '"toolCal|Id"')  # now also a line without a readable parent
    loaded = Session.load(session.path)
    assert _texts(loaded.history()) == [
        "first question",
        "assistant",
        "first answer",
        "second question",
        "second answer",
    ]


def test_lines_repeated_at_the_end_are_named_and_the_history_is_kept(tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path)
    for number in range(10):
        session.append_message(UserMessage.of_text(f"question {number}"))
        session.append_message(AssistantMessage([TextContent(f"answer {number}")]))
    session.close()
    lines = session.path.read_text().splitlines()
    session.path.write_text("\n".join([*lines, lines[1], lines[2]]) + "\n")  # the first two entries again
    with Session.load(session.path) as loaded:
        assert len(loaded.history()) == 20
        assert _texts(loaded.history())[-1] == "answer 9"
        assert loaded.load_report.warnings(session.path) == [
            f"{session.path} line {line} repeats the id of the entry on line {first} and was skipped "
            "(miniroom writes each entry once: the file was edited or joined by hand)"
            for line, first in ((22, 2), (23, 3))
        ]
        loaded.append_message(UserMessage.of_text("question 10"))
    assert _texts(Session.load(session.path).history())[-2:] == ["answer 9", "question 10"]
