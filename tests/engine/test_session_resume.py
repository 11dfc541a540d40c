"""A resume reads only the model's context: the branch back to the latest compaction, and the newest entry of
each type; reading every line (`sessions show`) gives the same conversation and names every damaged line."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.engine.session import Session
from miniroom.llm.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)


def _turn(session: Session, number: int) -> None:
    session.append_message(UserMessage.of_text(f"question {number}"))
    call = ToolCall(f"c{number}", "ls", {"path": "."})
    session.append_message(AssistantMessage([call], usage=Usage(100, 10), stop_reason="tool_use"))
    session.append_message(ToolResultMessage(f"c{number}", "ls", [TextContent("a.txt")]))
    session.append_message(AssistantMessage([TextContent(f"answer {number}")], usage=Usage(200, 20)))


def _compact(session: Session, keep_from: str) -> None:
    session.append("compaction", summary="the story so far", firstKeptEntryId=keep_from, tokensBefore=1000)


def _long_session(tmp_path: Path) -> Session:
    """Ten turns, a compaction keeping the ninth and tenth, two more turns; settings before the compaction."""
    session = Session.create(tmp_path, tmp_path)
    session.append("settings", profile={"toolCallTimeout": 60})
    for number in range(1, 9):
        _turn(session, number)
    kept = session.append_message(UserMessage.of_text("question 9"))
    session.append_message(AssistantMessage([TextContent("answer 9")], usage=Usage(300, 30)))
    _turn(session, 10)
    _compact(session, kept["id"])
    for number in (11, 12):
        _turn(session, number)
    session.close()
    return session


def _texts(messages: list[Message]) -> list[str]:
    return [getattr(m, "text", "") or m.role for m in messages]


def _damage(path: Path, line: int, old: bytes, new: bytes) -> None:
    lines = path.read_bytes().split(b"\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    path.write_bytes(b"\n".join(lines))


def test_a_resume_gives_what_reading_every_line_gives(tmp_path: Path) -> None:
    path = _long_session(tmp_path).path
    resumed, whole = Session.load(path), Session.load(path, whole=True)
    assert _texts(resumed.messages()) == _texts(whole.messages())
    assert _texts(resumed.messages())[:3] == [
        "The conversation so far was compacted into this summary:\n<summary>\nthe story so far\n</summary>",
        "question 9",
        "answer 9",
    ]
    assert (
        resumed.latest("settings")
        == whole.latest("settings")
        == {
            **(whole.latest("settings") or {}),
            "profile": {"toolCallTimeout": 60},
        }
    )
    assert resumed.total_usage() == whole.total_usage()
    assert resumed.total_usage().input == 11 * 300 + 300  # every answer in the file, compacted ones too
    assert _texts(resumed.history()) == _texts(whole.history())
    assert len(resumed.history()) == 12 * 4 - 2


def test_a_resume_does_not_read_the_compacted_lines_and_sessions_show_still_names_their_damage(
    tmp_path: Path,
) -> None:
    path = _long_session(tmp_path).path
    _damage(path, 4, b'"role":"assistant"', b'"role":"assistanT"')  # turn 1's tool call: compacted away
    resumed = Session.load(path)
    assert resumed.load_report.damaged_lines == []  # never read
    assert _texts(resumed.messages())[1:3] == ["question 9", "answer 9"]
    whole = Session.load(path, whole=True)
    assert whole.load_report.warnings(path) == [f"{path} line 4 is damaged and was skipped"]
    assert _texts(resumed.history()) == _texts(whole.history())  # reading the history finds it too
    assert resumed.load_report.damaged_lines == [4]


def test_a_damaged_line_in_the_context_is_named_at_resume_and_the_rest_keeps_its_order(
    tmp_path: Path,
) -> None:
    path = _long_session(tmp_path).path
    lines = path.read_text().splitlines()
    answer_11 = next(n for n, line in enumerate(lines, 1) if '"answer 11"' in line)
    _damage(path, answer_11, b'"content":[', b'"content";[')  # broken JSON after a readable start
    resumed = Session.load(path)
    assert resumed.load_report.damaged_lines == [answer_11]
    assert "answer 11" not in _texts(resumed.messages())
    assert _texts(resumed.messages())[-4:] == ["question 12", "assistant", "a.txt", "answer 12"]
    assert _texts(resumed.messages()) == _texts(Session.load(path, whole=True).messages())


def test_a_damaged_compaction_is_skipped_and_the_whole_branch_is_the_context(tmp_path: Path) -> None:
    path = _long_session(tmp_path).path
    number = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if '"compaction"' in line)
    _damage(path, number, b'"summary":', b'"summary";')
    resumed = Session.load(path)
    assert resumed.load_report.damaged_lines == [number]
    assert _texts(resumed.messages())[:2] == ["question 1", "assistant"]
    assert len(resumed.messages()) == 12 * 4 - 2


@pytest.mark.parametrize("torn", [True, False], ids=["torn-leaf", "damaged-leaf"])
def test_a_lost_last_entry_makes_the_one_before_it_the_leaf(tmp_path: Path, torn: bool) -> None:
    path = _long_session(tmp_path).path
    raw = path.read_bytes()
    path.write_bytes(raw[:-20] if torn else raw.replace(b'"answer 12"', b'"answer 12}', 1))
    last = len(path.read_bytes().split(b"\n")) - (0 if torn else 1)
    with Session.load(path) as resumed:
        assert (resumed.load_report.torn_line, resumed.load_report.damaged_lines) == (
            (last, []) if torn else (None, [last])
        )
        assert _texts(resumed.messages())[-1] == "a.txt"
        resumed.append_message(UserMessage.of_text("go on"))
        assert _texts(resumed.messages())[-2:] == ["a.txt", "go on"]


def test_a_resume_of_a_rewound_session_follows_the_leaf(tmp_path: Path) -> None:
    with Session.create(tmp_path, tmp_path) as session:
        _turn(session, 1)
        prompt = session.append_message(UserMessage.of_text("question 2"))
        session.append_message(AssistantMessage([TextContent("half an answer")]))
        session.rewind(prompt["id"], "run again")
        session.append_message(AssistantMessage([TextContent("the whole answer")]))
    resumed = Session.load(session.path)
    assert _texts(resumed.messages())[-2:] == ["question 2", "the whole answer"]
    assert _texts(resumed.messages()) == _texts(Session.load(session.path, whole=True).messages())
