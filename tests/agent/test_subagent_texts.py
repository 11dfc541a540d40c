"""What the model reads of background tasks: agent_check's answer and a finished task's message (pure)."""

from __future__ import annotations

from miniroom.agent.subagents.manager import check_text, outcome_message
from miniroom.agent.subagents.progress import SubagentStatus, progress_line
from miniroom.agent.subagents.store import TaskRecord
from miniroom.llm.messages import Usage
from miniroom.tools.output import MAX_OUTPUT_LINES


def task(**fields: object) -> TaskRecord:
    return TaskRecord(3, "run tests", "run the suite", "call_1", **fields)  # type: ignore[arg-type]


def test_an_unfinished_task_says_where_it_stands() -> None:
    running = SubagentStatus("run tests", "running", "progress", "s1", 3, "Bash pytest -q", Usage(input=1200))
    assert (
        check_text(task(state="queued"), running)
        == "Task 3 (run tests): queued, waiting for a free subagent slot."
    )
    assert check_text(task(state="running"), running) == (
        "Task 3 (run tests): running, now Bash pytest -q; 1,200 tokens so far."
    )
    elsewhere = task(state="running", owner={"pid": 4242, "started": "1"})
    assert (
        check_text(elsewhere, None) == "Task 3 (run tests): running, in another miniroom process (pid 4242)."
    )


def test_a_finished_task_gives_its_answer_error_or_stop_note() -> None:
    assert (
        check_text(task(state="done", answer="12 passed"), None) == "Task 3 (run tests): done.\n\n12 passed"
    )
    assert check_text(task(state="failed", error="the key was refused"), None) == (
        "Task 3 (run tests): failed.\n\nthe key was refused"
    )
    stopped = task(state="stopped", note="stopped with agent_stop", answer="2 of 9 done", session="s1")
    assert check_text(stopped, None) == (
        "Task 3 (run tests): stopped.\n\nStopped: stopped with agent_stop.\n\n"
        "What it wrote before it stopped:\n2 of 9 done\n\n[subagent s1]"  # the id `resume` continues
    )
    cancelled = task(state="stopped", note="stopped with agent_stop")
    assert check_text(cancelled, None) == (
        "Task 3 (run tests): stopped.\n\nStopped before it started: stopped with agent_stop."
    )


def test_the_outcome_message_is_capped_and_says_where_the_rest_is() -> None:
    assert outcome_message(task(state="done", answer="12 passed")) == (
        "Background task 3 (run tests) finished. Its answer:\n\n12 passed"
    )
    assert (
        outcome_message(task(state="failed", error="boom")) == "Background task 3 (run tests) failed:\n\nboom"
    )
    long = "\n".join(str(n) for n in range(MAX_OUTPUT_LINES + 1))
    text = outcome_message(task(state="done", answer=long, session="s9"))
    assert text.endswith(
        f"[Cut to the first {MAX_OUTPUT_LINES} of {MAX_OUTPUT_LINES + 1} lines. "
        "The whole answer is in session s9 (`miniroom sessions show s9`).]\n\n[subagent s9]"
    )


def test_the_progress_line_names_the_tool_and_the_tokens() -> None:
    status = SubagentStatus(
        "review a", "running", "progress", "s1", None, "Read a.py", Usage(input=1500, output=234)
    )
    assert progress_line(status) == "review a: Read a.py · 1.7k tokens"
    assert progress_line(status.moved(tool=None, state="done")) == "review a: done · 1.7k tokens"
