"""The `bash` tool as the engine calls it: validate the raw arguments, then execute in a real shell."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest

from miniroom.engine.tool import ToolContext, ToolError, ToolResult
from miniroom.llm.messages import TextContent
from miniroom.tools.bash import BashTool

TOOL = BashTool()


def context(cwd: Path, call_timeout: float = 30) -> ToolContext:
    return ToolContext(
        cwd=cwd,
        timeout=call_timeout,
    )


async def run_bash(tmp_path: Path, arguments: dict[str, Any], call_timeout: float = 30) -> ToolResult:
    return await TOOL.execute(TOOL.validate(arguments), context(tmp_path, call_timeout))


def text_of(result: ToolResult) -> str:
    assert len(result.content) == 1
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


def read_numbers(path: Path) -> list[int]:
    return [int(word) for word in path.read_text().split()]


def file_size(path: Path) -> int:
    return path.stat().st_size


async def test_success_returns_the_output_alone(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, {"command": "echo hello"})
    assert text_of(result) == "hello"
    assert not result.is_error
    assert result.details == {"exit_code": 0, "timed_out": False, "full_output_path": None}


async def test_failure_merges_stderr_in_order_and_reports_the_exit_code(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, {"command": "echo one; echo two >&2; echo three; exit 2"})
    assert text_of(result) == "one\ntwo\nthree\n\nExit code: 2"
    assert result.is_error
    assert result.details["exit_code"] == 2


async def test_no_output_says_so(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, {"command": "false"})
    assert text_of(result) == "(no output)\n\nExit code: 1"


async def test_the_model_timeout_is_capped_by_the_call_timeout(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, {"command": "echo waiting; sleep 30", "timeout": 100}, call_timeout=1)
    assert text_of(result) == "waiting\n\nCommand timed out after 1 second"
    assert result.is_error
    assert result.details == {"exit_code": None, "timed_out": True, "full_output_path": None}


async def test_the_model_timeout_applies_when_shorter(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, {"command": "sleep 30", "timeout": 1}, call_timeout=60)
    assert text_of(result) == "(no output)\n\nCommand timed out after 1 second"


async def test_many_lines_keep_the_tail_and_save_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = await run_bash(tmp_path, {"command": "seq 1 100000"})
    path = Path(result.details["full_output_path"])
    assert path.name.startswith("miniroom-bash-")
    text = text_of(result)
    assert text.startswith("98001\n")
    assert text.endswith(
        f"\n100000\n\n[Output truncated: showing the last 2000 of 100000 lines. Full output: {path}]"
    )
    assert read_numbers(path) == list(range(1, 100001))


async def test_full_output_files_live_in_a_private_folder_removed_on_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    tool = BashTool()
    paths = []
    for _ in range(2):
        result = await tool.execute(tool.validate({"command": "seq 1 5000"}), context(tmp_path))
        paths.append(Path(result.details["full_output_path"]))
    folder = paths[0].parent
    assert folder.parent == tmp_path
    assert folder.name.startswith("miniroom-output-")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(paths[0].stat().st_mode) == 0o600
    assert paths[1].parent == folder
    assert paths[1] != paths[0]
    tool.close()  # what the agent does when it closes
    assert not folder.exists()


async def test_huge_output_streams_to_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = await run_bash(tmp_path, {"command": "yes | head -c 20000000"})
    path = Path(result.details["full_output_path"])
    assert file_size(path) == 20_000_000
    assert len(text_of(result).encode()) < 51_200 + 200
    assert "showing the last 2000 of 10000000 lines" in text_of(result)
    assert not result.is_error


async def test_pagers_and_colours_are_off(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, {"command": 'echo "$PAGER $GIT_PAGER $MANPAGER $TERM $NO_COLOR"'})
    assert text_of(result) == "cat cat cat dumb 1"


async def test_keys_never_reach_the_child_and_named_variables_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "MY_VENDOR_KEY", "OPENAI_KEY", "MINIROOM_TEST_ORDINARY"):
        monkeypatch.setenv(name, f"sk-secret-{name.lower()}")
    monkeypatch.setenv("MINIROOM_TEST_WANTED", "still-here")
    monkeypatch.setenv("MINI_TOOL_ENV", "MINIROOM_TEST_WANTED")
    output = text_of(await run_bash(tmp_path, {"command": "env"}))
    assert "MINIROOM_TEST_WANTED=still-here" in output
    assert f"HOME={os.environ['HOME']}" in output
    assert "sk-secret" not in output


async def test_a_missing_working_folder_is_a_tool_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"The working folder .*nowhere does not exist"):
        await run_bash(tmp_path / "nowhere", {"command": "echo hi"})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "Invalid arguments for bash: command: Field required"),
        (
            {"command": "   "},
            "Invalid arguments for bash: command: the command is empty: give a shell command",
        ),
        (
            {"command": "ls", "timeout": -5},
            "Invalid arguments for bash: timeout: Input should be greater than 0",
        ),
        (
            {"command": "ls", "timeout": 0},
            "Invalid arguments for bash: timeout: Input should be greater than 0",
        ),
        (
            {"command": "ls", "timeout": "soon"},
            "Invalid arguments for bash: timeout: Input should be a valid",
        ),
        ({"command": "ls", "cwd": "/"}, "Invalid arguments for bash: cwd: Extra inputs are not permitted"),
        (
            {"command": "echo a\0b"},
            "Invalid arguments for bash: command: the command holds a NUL character (\\0), which no shell "
            "command can carry: remove it",
        ),
    ],
)
def test_bad_arguments_name_the_field(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as error:
        TOOL.validate(arguments)
    assert str(error.value).startswith(message)


def test_summary_is_one_short_line() -> None:
    assert TOOL.summary({"command": "pytest -q"}) == "Bash pytest -q"
    assert TOOL.summary({"command": "cd src &&\n  make all"}) == "Bash cd src && make all"
    assert len(TOOL.summary({"command": "x" * 500})) == 80
    assert TOOL.summary({}) == "Bash"


def test_spec_is_small_and_plain() -> None:
    spec = TOOL.spec
    assert spec.name == "bash"
    assert spec.parameters["required"] == ["command"]
    assert spec.parameters["properties"]["timeout"]["type"] == "integer"
    # The whole prompt plus ~13 tools must fit 2,500 tokens: keep this one near 150 (about 4 characters each).
    assert len(spec.description) + len(json.dumps(spec.parameters)) < 700
