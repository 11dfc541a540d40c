"""`ask_user`: its arguments checked with clear errors; without anyone to answer, the model is told so."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.engine import ToolContext, ToolError
from miniroom.tools.ask_user import AskUserTool


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"question": "  "}, "question: String should have at least 1 character"),
        ({"question": "Which?", "options": ["a", "b", "c", "d", "e"]}, "options: List should have at most 4"),
        ({"question": "Which?", "options": [""]}, "options.0: String should have at least 1 character"),
        ({"ask": "Which?"}, "question: Field required"),
    ],
)
def test_bad_arguments_say_what_is_wrong(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ToolError, match="Invalid arguments for ask_user: ") as raised:
        AskUserTool().validate(arguments)
    assert message in str(raised.value)


async def test_without_anyone_to_answer_the_model_goes_on_its_own(tmp_path: Path) -> None:
    tool = AskUserTool()
    result = await tool.execute(tool.validate({"question": "Which?"}), ToolContext(tmp_path))
    assert result.is_error
    assert result.content[0].text.startswith("No answer came in time (or no one can answer here).")  # type: ignore[union-attr]
