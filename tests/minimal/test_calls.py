"""Calls through the operations: receipts, waits held on the call's end, `--call-id` joins or conflicts,
the 1024/64 limits, max_tool_calls_per_turn, calls after the command returned, long results and media."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

from miniroom.engine import events as ev
from miniroom.llm.messages import ImageContent
from miniroom.minimal.calls import MAX_HELD, MAX_OPERATIONS, MAX_RECEIPTS
from miniroom.minimal.errors import OperationError
from miniroom.minimal.outcomes import MAX_INLINE_CHARS, PREVIEW_CHARS
from miniroom.minimal.receipts import INTERRUPTED
from miniroom.tools.read import ReadTool
from tests.minimal.support import BOB, GatedTool, open_bench

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


async def test_a_call_runs_and_its_receipt_holds_the_outcome(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    bench = await open_bench(tmp_path, {"files.read": ReadTool()})
    receipt = await bench.call("files read", {"path": "notes.txt"}, call_id="c-1")
    assert (receipt.call_id, receipt.tool, receipt.status) == ("c-1", "files.read", "succeeded")
    assert receipt.outcome == {"is_error": False, "text": "hello"}
    started, ended = bench.emitted
    assert isinstance(started, ev.ToolStarted)
    assert (started.name, started.summary) == ("files.read", "Read notes.txt (miniroom-agent)")
    assert isinstance(ended, ev.ToolEnded)
    assert bench.service.get(bench.token, "c-1") == receipt


async def test_a_failing_call_is_a_failed_receipt(tmp_path: Path) -> None:
    bench = await open_bench(tmp_path, {"files.read": ReadTool()})
    receipt = await bench.call("files.read", {"path": "missing.txt"})
    assert receipt.status == "failed"
    assert receipt.outcome is not None
    assert receipt.outcome["is_error"] is True


async def test_wait_is_held_until_the_call_ends(tmp_path: Path) -> None:
    hold = GatedTool()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    queued = await bench.call("x.hold", call_id="c-1", wait=0)
    assert queued.status == "queued"
    waiting = asyncio.create_task(bench.service.wait(bench.token, "c-1", 60))
    await hold.started.wait()
    assert not waiting.done()
    hold.release()
    assert (await waiting).status == "succeeded"


async def test_a_wait_that_times_out_returns_the_receipt_and_the_call_goes_on(tmp_path: Path) -> None:
    hold = GatedTool()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    await bench.call("x.hold", call_id="c-1", wait=0)
    assert (await bench.service.wait(bench.token, "c-1", 0.01)).status == "running"
    hold.release()
    assert (await bench.service.wait(bench.token, "c-1", 60)).status == "succeeded"


async def test_the_same_call_id_with_the_same_arguments_joins_the_call(tmp_path: Path) -> None:
    hold = GatedTool()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    first = asyncio.create_task(bench.call("x.hold", {"a": 1}, call_id="c-1"))
    await hold.started.wait()
    joined = asyncio.create_task(bench.call("x.hold", {"a": 1}, call_id="c-1"))
    hold.release()
    assert (await first) == (await joined)
    assert hold.calls == 1


async def test_the_same_call_id_with_other_arguments_is_refused(tmp_path: Path) -> None:
    hold = GatedTool()
    hold.release()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    await bench.call("x.hold", {"a": 1}, call_id="c-1")
    with pytest.raises(OperationError) as refused:
        await bench.call("x.hold", {"a": 2}, call_id="c-1")
    assert refused.value.status == 409
    assert "call id c-1 was submitted with another tool or other arguments" in refused.value.message
    assert hold.calls == 1


async def test_another_conversation_neither_sees_nor_takes_a_call_id(tmp_path: Path) -> None:
    hold = GatedTool()
    hold.release()
    alice = await open_bench(tmp_path, {"x.hold": hold})
    bob = await open_bench(tmp_path, {"x.hold": hold}, scope=BOB, service=alice.service)
    await alice.call("x.hold", call_id="c-1")
    with pytest.raises(OperationError) as unseen:
        bob.service.get(bob.token, "c-1")
    assert (unseen.value.status, unseen.value.message) == (
        404,
        "no call c-1 in this conversation: use an id a tools call printed",
    )
    with pytest.raises(OperationError, match="call id c-1 is taken"):
        await bob.call("x.hold", call_id="c-1")


async def test_a_command_that_returned_submits_nothing_more_but_still_reads(tmp_path: Path) -> None:
    hold = GatedTool()
    hold.release()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    await bench.call("x.hold", call_id="c-1")
    await bench.ticket.close()
    with pytest.raises(OperationError) as refused:
        await bench.call("x.hold", call_id="c-2")
    assert refused.value.status == 403
    assert "bash call has returned, so it can submit no more calls" in refused.value.message
    assert (await bench.service.wait(bench.token, "c-1", 1)).status == "succeeded"


async def test_a_command_returns_once_its_calls_finished(tmp_path: Path) -> None:
    hold = GatedTool()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    await bench.call("x.hold", call_id="c-1", wait=0)
    closing = asyncio.create_task(bench.ticket.close())
    await hold.started.wait()
    assert not closing.done()
    hold.release()
    await closing
    assert bench.service.get(bench.token, "c-1").status == "succeeded"


async def test_an_aborted_command_stops_its_calls(tmp_path: Path) -> None:
    hold = GatedTool()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    await bench.call("x.hold", call_id="c-1", wait=0)
    await hold.started.wait()
    await bench.ticket.close(cancelled=True)
    receipt = bench.service.get(bench.token, "c-1")
    assert receipt.status == "failed"
    assert receipt.outcome is not None
    assert "its response ended or was aborted" in receipt.outcome["text"]


async def test_at_most_64_operations_run_at_once(tmp_path: Path) -> None:
    hold = GatedTool()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    for index in range(MAX_OPERATIONS):
        await bench.call("x.hold", {"i": index}, wait=0)
    with pytest.raises(OperationError) as refused:
        await bench.call("x.hold", {"i": "one more"}, wait=0)
    assert refused.value.status == 429
    assert "already runs 64 miniroom-agent calls at once" in refused.value.message
    hold.release()
    await bench.ticket.close()
    another = await bench.response.open_command()
    assert (
        await bench.call("x.hold", token=another.environment["MINIROOM_AGENT_TOKEN"])
    ).status == "succeeded"


async def test_waits_are_not_calls_but_at_most_1024_are_held_at_once(tmp_path: Path) -> None:
    hold = GatedTool()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    for index in range(MAX_OPERATIONS):
        await bench.call("x.hold", {"i": index}, call_id=f"c-{index}", wait=0)
    waits = [asyncio.create_task(bench.service.wait(bench.token, "c-0", 60)) for _ in range(MAX_HELD)]
    await asyncio.sleep(0)  # each wait runs up to its call's end, held
    assert bench.response.response.waiting == MAX_HELD
    assert (await bench.service.wait(bench.token, "c-1", 0)).status == "running"  # read at once: not held
    with pytest.raises(OperationError) as refused:
        await bench.service.wait(bench.token, "c-1", 60)
    assert refused.value.status == 429
    assert "1024 miniroom-agent requests waiting on calls" in refused.value.message
    assert (await bench.call("x.hold", {"i": 1}, call_id="c-1", wait=60)).status == "running"  # not held
    hold.release()
    assert {(await wait).status for wait in waits} == {"succeeded"}


async def test_a_response_keeps_at_most_1024_receipts(tmp_path: Path) -> None:
    hold = GatedTool()
    hold.release()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    for index in range(MAX_RECEIPTS):
        await bench.call("x.hold", {"i": index})
    with pytest.raises(OperationError) as refused:
        await bench.call("x.hold", {"i": "one more"})
    assert refused.value.status == 429
    assert "has made 1024 calls through miniroom-agent, the most one response keeps" in refused.value.message
    assert hold.calls == MAX_RECEIPTS


async def test_calls_past_max_tool_calls_per_turn_get_a_failed_receipt_and_do_not_run(tmp_path: Path) -> None:
    hold = GatedTool()
    hold.release()
    bench = await open_bench(tmp_path, {"x.hold": hold}, max_calls=2)
    receipts = [await bench.call("x.hold", {"i": index}) for index in range(3)]
    assert [receipt.status for receipt in receipts] == ["succeeded", "succeeded", "failed"]
    over = bench.service.get(bench.token, receipts[2].call_id)
    assert over.outcome is not None
    assert "max_tool_calls_per_turn allows" in over.outcome["text"]
    assert hold.calls == 2


async def test_a_long_result_is_a_preview_and_a_workspace_file(tmp_path: Path) -> None:
    text = "".join(f"line {index} {'x' * 60}\n" for index in range(3000))
    (tmp_path / "long.txt").write_text(text)
    bench = await open_bench(tmp_path, {"files.read": ReadTool()})
    receipt = await bench.call("files.read", {"path": "long.txt"}, call_id="c-long")
    outcome = receipt.outcome
    assert outcome is not None
    assert outcome["truncated"] is True
    assert len(outcome["text"]) == PREVIEW_CHARS < MAX_INLINE_CHARS < outcome["total_chars"]
    assert outcome["full_output_path"] == ".miniroom-calls/c-long.txt"
    assert (tmp_path / ".miniroom-calls" / "c-long.txt").read_text().startswith("line 0 xxx")


async def test_an_image_reaches_the_commands_result_and_the_receipt_says_so(tmp_path: Path) -> None:
    (tmp_path / "dot.png").write_bytes(PNG)
    bench = await open_bench(tmp_path, {"files.read": ReadTool()})
    receipt = await bench.call("files.read", {"path": "dot.png"})
    assert receipt.outcome is not None
    assert receipt.outcome["media"][0]["mime_type"] == "image/png"
    [image] = await bench.ticket.close()
    assert isinstance(image, ImageContent)


async def test_receipts_outlive_a_restart_and_unfinished_calls_become_failed(tmp_path: Path) -> None:
    hold = GatedTool()
    bench = await open_bench(tmp_path, {"x.hold": hold})
    hold_done = GatedTool()
    hold_done.release()
    done_bench = await open_bench(tmp_path, {"x.hold": hold_done}, service=bench.service)
    await done_bench.call("x.hold", call_id="c-done")
    await bench.call("x.hold", call_id="c-open", wait=0)
    bench.service.store.close()  # as a stop leaves it: the running call never got its end written
    reopened = await open_bench(tmp_path, {})  # a new process: a fresh service on the same file
    assert reopened.service.get(reopened.token, "c-done").status == "succeeded"
    interrupted = reopened.service.get(reopened.token, "c-open")
    assert interrupted.status == "failed"
    assert interrupted.outcome == {"is_error": True, "text": INTERRUPTED}
    hold.release()


@pytest.mark.parametrize(
    ("call_id", "wait", "message"),
    [
        ("../../etc/passwd", 30, "must be a UUID"),
        ("x" * 65, 30, "must be a UUID"),
        ("c-1", -1, "the timeout must be between 0 and"),
        ("c-1", 86_401, "the timeout must be between 0 and"),
    ],
)
async def test_bad_call_ids_and_waits_are_refused(
    tmp_path: Path, call_id: str, wait: float, message: str
) -> None:
    bench = await open_bench(tmp_path, {"files.read": ReadTool()})
    with pytest.raises(OperationError, match=message):
        await bench.call("files.read", {"path": "x"}, call_id=call_id, wait=wait)
    assert bench.response.response.receipts == 0
