"""Assembling a reply from its pieces: blocks in arrival order, and time linear in the answer's length."""

from __future__ import annotations

import time

from miniroom.llm.messages import TextContent, ThinkingContent, ToolCall
from miniroom.llm.model import Model
from miniroom.llm.wire import MessageAssembler

MODEL = Model(id="m", provider="p", api="anthropic-messages", base_url="http://127.0.0.1:9")


def test_pieces_join_into_blocks_in_arrival_order() -> None:
    assembler = MessageAssembler(MODEL)
    for piece in ("Let me ", "think."):
        assembler.add_thinking(piece)
    for piece in ("The answer ", "is ", "42."):
        assembler.add_text(piece)
    assembler.start_tool_call("c1", "read")
    assembler.add_tool_arguments("c1", '{"path": "a"}')
    assembler.end_tool_call("c1")
    assembler.add_text("Done")
    assembler.close_block()
    assembler.add_text(" again")  # a closed block is not reopened
    done = assembler.done("stop")
    assert done.message.content == [
        ThinkingContent("Let me think."),
        TextContent("The answer is 42."),
        ToolCall("c1", "read", {"path": "a"}),
        TextContent("Done"),
        TextContent(" again"),
    ]


def test_a_failed_reply_keeps_the_text_that_arrived() -> None:
    from miniroom.llm.errors import ErrorKind, ProviderFailure

    assembler = MessageAssembler(MODEL)
    assembler.add_text("half an ")
    assembler.add_text("answer")
    done = assembler.fail(ProviderFailure(ErrorKind.CONNECTION, "cut"))
    assert done.message.text == "half an answer"


def _seconds_to_assemble(pieces: int) -> float:
    """The best of three runs: a busy machine can only make a run slower, never faster."""
    best = float("inf")
    for _ in range(3):
        assembler = MessageAssembler(MODEL)
        started = time.process_time()  # this process's CPU: other work on the machine does not count
        for _ in range(pieces):
            assembler.add_text("sixteen chars ok")
        assembler.done("stop")
        best = min(best, time.process_time() - started)
    return best


def test_assembling_time_grows_linearly_with_the_answer() -> None:
    # 8x the pieces: about 8x the time when linear, about 64x when every piece copies the text so far.
    small, large = _seconds_to_assemble(16_000), _seconds_to_assemble(128_000)
    assert large < 24 * small, (small, large)
