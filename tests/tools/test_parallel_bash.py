"""The `parallel_bash` tool: concurrency under the profile's limit, ordered sections, caps and abort."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from miniroom.engine.tool import ToolContext, ToolError, ToolResult, ToolSettings
from miniroom.llm.messages import TextContent
from miniroom.tools.output import MAX_OUTPUT_BYTES
from miniroom.tools.parallel_bash import MAX_COMMANDS, ParallelBashTool
from tests.tools.test_bash import read_numbers
from tests.tools.test_shell import assert_all_gone, recorded_pids, wait_for_pids

TOOL = ParallelBashTool()


async def run_parallel(
    tmp_path: Path,
    arguments: dict[str, Any],
    settings: ToolSettings | None = None,
    call_timeout: float = 30,
) -> ToolResult:
    params = TOOL.validate(arguments)
    return await TOOL.execute(
        params, ToolContext(cwd=tmp_path, timeout=call_timeout, settings=settings or ToolSettings())
    )


def text_of(result: ToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


def max_overlap(folder: Path, count: int) -> int:
    """The most commands running at one moment, from the start/end nanosecond stamps each one wrote."""
    spans = [(int((folder / f"s{i}").read_text()), int((folder / f"e{i}").read_text())) for i in range(count)]
    return max(sum(start <= moment < end for start, end in spans) for moment, _ in spans)


def timed_commands(count: int, seconds: float) -> list[str]:
    return [f"date +%s%N > s{i}; sleep {seconds}; date +%s%N > e{i}" for i in range(count)]


async def test_sections_follow_input_order_not_finishing_order(tmp_path: Path) -> None:
    result = await run_parallel(tmp_path, {"commands": ["sleep 0.3; echo slow", "echo fast"]})
    assert (
        text_of(result)
        == "[1] sleep 0.3; echo slow\nslow\n\nExit code: 0\n\n[2] echo fast\nfast\n\nExit code: 0"
    )
    assert not result.is_error


async def test_one_failure_marks_the_result_and_its_section(tmp_path: Path) -> None:
    result = await run_parallel(tmp_path, {"commands": ["echo ok", "echo bad >&2; exit 4", "true"]})
    assert text_of(result) == (
        "[1] echo ok\nok\n\nExit code: 0\n\n"
        "[2] echo bad >&2; exit 4\nbad\n\nExit code: 4\n\n"
        "[3] true\n(no output)\n\nExit code: 0\n\n"
        "1 of 3 commands failed: [2]"
    )
    assert result.is_error
    assert [command["exit_code"] for command in result.details["commands"]] == [0, 4, 0]


async def test_the_profile_limit_bounds_how_many_run_at_once(tmp_path: Path) -> None:
    await run_parallel(
        tmp_path, {"commands": timed_commands(6, 0.2)}, settings=ToolSettings(parallel_bash_threads=2)
    )
    assert max_overlap(tmp_path, 6) == 2


async def test_five_run_at_once_by_default(tmp_path: Path) -> None:
    await run_parallel(tmp_path, {"commands": timed_commands(6, 0.4)})
    assert max_overlap(tmp_path, 6) == 5


async def test_each_command_gets_its_own_timeout(tmp_path: Path) -> None:
    result = await run_parallel(tmp_path, {"commands": ["sleep 30", "echo quick"], "timeout": 1})
    assert text_of(result) == (
        "[1] sleep 30\n(no output)\n\nCommand timed out after 1 second\n\n"
        "[2] echo quick\nquick\n\nExit code: 0\n\n"
        "1 of 2 commands failed: [1]"
    )


async def test_big_outputs_share_the_cap_so_every_section_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = await run_parallel(tmp_path, {"commands": [f"seq {n} 5000" for n in range(1, 5)]})
    text = text_of(result)
    assert len(text.encode()) <= MAX_OUTPUT_BYTES
    assert result.details["full_output_path"] is None, "the sections alone fit the cap"
    for index, command in enumerate(result.details["commands"], start=1):
        assert f"[{index}] seq {index} 5000\n" in text
        full = Path(command["full_output_path"])
        assert read_numbers(full) == list(range(index, 5001))
        assert f"Full output: {full}]" in text


async def test_cancellation_kills_every_running_tree(tmp_path: Path) -> None:
    commands = ["sleep 30 & echo $! >> pids; echo $$ >> pids; wait"] * 3
    task = asyncio.create_task(run_parallel(tmp_path, {"commands": commands}))
    await wait_for_pids(tmp_path, 6)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_all_gone(recorded_pids(tmp_path))


async def test_a_missing_working_folder_is_a_tool_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"The working folder .*nowhere does not exist"):
        await run_parallel(tmp_path / "nowhere", {"commands": ["echo hi"]})


@pytest.mark.parametrize("threads", [0, -1, "five", True])
async def test_a_bad_thread_setting_names_the_setting(tmp_path: Path, threads: object) -> None:
    hostile = ToolSettings(parallel_bash_threads=threads)  # type: ignore[arg-type]
    with pytest.raises(ToolError, match=r"parallelBashThreads must be a whole number of at least 1"):
        await run_parallel(tmp_path, {"commands": ["echo hi"]}, settings=hostile)


PREFIX = "Invalid arguments for parallel_bash: "


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "commands: Field required"),
        ({"commands": []}, "commands: List should have at least 1 item"),
        ({"commands": ["ls", " "]}, "commands.1: the command is empty: give a shell command to run"),
        (
            {"commands": ["ls"] * (MAX_COMMANDS + 1)},
            f"commands: List should have at most {MAX_COMMANDS} items",
        ),
        ({"commands": "ls"}, "commands: Input should be a valid list"),
        ({"commands": ["ls"], "timeout": -1}, "timeout: Input should be greater than 0"),
    ],
)
def test_bad_arguments_name_the_field(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as error:
        TOOL.validate(arguments)
    assert str(error.value).startswith(PREFIX + message)


def test_summary_is_one_short_line() -> None:
    assert TOOL.summary({"commands": ["git status"]}) == "ParallelBash git status"
    assert TOOL.summary({"commands": ["ls", "df -h", "pwd"]}) == "ParallelBash 3 commands: ls; df -h; pwd"
    assert len(TOOL.summary({"commands": ["x" * 100, "y"]})) == 80
    assert TOOL.summary({"commands": "not a list"}) == "ParallelBash"


def test_description_states_the_independence_contract() -> None:
    spec = TOOL.spec
    assert "None may need another's output, files or effects" in spec.description
    assert spec.parameters["properties"]["commands"]["minItems"] == 1
    assert len(spec.description) + len(json.dumps(spec.parameters)) < 800
