"""Reading a session's entries for UIs: one tool call's card, and usage by agent, model and day."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from miniroom.engine.call_records import MAX_ARGUMENT_CHARS, MAX_RESULT_CHARS, find_call
from miniroom.engine.usage_report import assistant_messages, tally_usage

NOON = datetime(2026, 3, 2, 12).timestamp()


def entry(entry_id: str, message: dict[str, Any], stamp: str = "t") -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "timestamp": stamp, "message": message}


def assistant(
    model: str = "m", *, usage: tuple[int, int, int, int, float] = (1, 1, 0, 0, 0.0), **more: Any
) -> dict[str, Any]:
    tokens = dict(zip(("input", "output", "cacheRead", "cacheWrite"), usage[:4], strict=True))
    return {
        "role": "assistant",
        "provider": "p",
        "model": model,
        "usage": {**tokens, "cost": {"total": usage[4]}},
        "timestamp": NOON,
        "content": [],
        **more,
    }


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return assistant(content=[{"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}])


def result(call_id: str, text: str, *, error: bool = False) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "x",
        "content": [{"type": "text", "text": text}],
        "isError": error,
    }


def test_a_call_is_found_with_its_result() -> None:
    entries = [
        entry("a", call("c1", "read", {"path": "x.py"})),
        entry("b", result("c1", "print(1)")),
        entry("c", call("c2", "bash", {"command": "false"})),
        entry("d", result("c2", "exit 1", error=True)),
    ]
    first = find_call(entries, "c1")
    assert first is not None
    assert (first.name, first.arguments, first.result, first.is_error) == (
        "read",
        {"path": "x.py"},
        "print(1)",
        False,
    )
    second = find_call(entries, "c2")
    assert second is not None
    assert (second.result, second.is_error) == ("exit 1", True)
    assert find_call(entries, "c3") is None


def test_a_call_still_running_has_no_result() -> None:
    record = find_call([entry("a", call("c1", "bash", {"command": "sleep 9"}))], "c1")
    assert record is not None
    assert record.result is None


def test_long_arguments_and_results_are_cut_and_say_so() -> None:
    content = "x" * (MAX_ARGUMENT_CHARS + 5)
    entries = [
        entry("a", call("c1", "write", {"content": content})),
        entry("b", result("c1", "y" * (MAX_RESULT_CHARS + 1))),
    ]
    record = find_call(entries, "c1")
    assert record is not None
    assert len(record.arguments["content"]) == MAX_ARGUMENT_CHARS
    assert record.result is not None
    assert len(record.result) == MAX_RESULT_CHARS
    assert record.truncated


def test_usage_is_tallied_by_agent_model_and_day_failed_attempts_included() -> None:
    messages = [
        ("helper", assistant("a", usage=(10, 1, 0, 0, 0.5))),
        ("helper", assistant("a", usage=(5, 0, 0, 0, 0.1), stopReason="error")),
        ("scout", assistant("b", usage=(100, 10, 20, 3, 2.0), timestamp=NOON + 86_400)),
    ]
    report = tally_usage(messages)
    assert report["total"] == {
        "requests": 3,
        "failed": 1,
        "input": 115,
        "output": 11,
        "cache_read": 20,
        "cache_write": 3,
        "cost": 2.6,
    }
    assert [(row["agent"], row["requests"], row["failed"]) for row in report["by_agent"]] == [
        ("scout", 1, 0),
        ("helper", 2, 1),
    ]
    assert [row["model"] for row in report["by_model"]] == ["p/b", "p/a"]
    assert [(row["day"], row["input"]) for row in report["by_day"]] == [
        ("2026-03-03", 100),
        ("2026-03-02", 15),
    ]


def test_history_copied_into_a_recreated_session_is_counted_once() -> None:
    seen: set[str] = set()
    first = [entry("a", assistant(), "t1"), entry("b", assistant(), "t2")]
    recreated = [entry("a", assistant(), "t1"), entry("b", assistant(), "t2"), entry("c", assistant(), "t3")]
    counted = [*assistant_messages(first, seen), *assistant_messages(recreated, seen)]
    assert len(counted) == 3
