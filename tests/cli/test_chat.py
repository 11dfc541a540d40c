"""`miniroom chat` driven through its terminal streams: streaming, tool lines, spend, Ctrl-C, resume."""

from __future__ import annotations

import queue
import signal
import subprocess
import threading
import time

import pytest

from miniroom.engine.session import Session
from miniroom.engine.session_index import latest_session_path
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import MINIROOM, Workspace
from tests.processes import LIMIT_SECONDS

one_protocol = pytest.mark.parametrize("workspace", ["openai-completions"], indirect=True)


class ChatProcess:
    """A running `miniroom chat` whose output is read as it arrives."""

    def __init__(self, workspace: Workspace, *args: str) -> None:
        self.process = subprocess.Popen(
            [MINIROOM, "chat", *args],
            cwd=workspace.project,
            env=workspace.env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            bufsize=1,
        )
        self.output = ""
        self._chunks: queue.Queue[str] = queue.Queue()
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        while chunk := self.process.stdout.read(1):
            self._chunks.put(chunk)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def expect(self, text: str, timeout: float = LIMIT_SECONDS) -> str:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{text!r} did not appear; output so far:\n{self.output}")
            try:
                self.output += self._chunks.get(timeout=remaining)
            except queue.Empty:
                continue
        return self.output

    def close(self) -> int:
        """Exit the chat (unless it ended), and close the pipes once its output has been read to the end."""
        if self.process.poll() is None:
            self.send("/exit")
        status = self.process.wait(timeout=LIMIT_SECONDS)
        self._pump_thread.join()
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.close()
        self.process.stdout.close()
        return status


@one_protocol
def test_chat_streams_shows_tool_lines_and_spend(workspace: Workspace, provider: ScriptedProvider) -> None:
    (workspace.project / "notes.txt").write_text("remember the milk\n")
    provider.script(
        Reply(tool_calls=[("read", {"path": "notes.txt"})], usage=(1000, 20, 0, 0)),
        Reply(
            text="Your note says: remember the milk.",
            thinking="The note is short. " * 5,
            usage=(1200, 30, 800, 0),
        ),
    )
    chat = ChatProcess(workspace)
    chat.expect("> ")
    chat.send("what is in my notes?")
    out = chat.expect("session $")
    assert out.count("💭 thinking…") == 1  # once, however many pieces the reasoning streams in
    assert "The note is short." not in out
    assert "● Read notes.txt" in out
    assert "Your note says: remember the milk." in out
    assert "↑2,200 ↓50" in out
    assert chat.close() == 0


@one_protocol
def test_ctrl_c_aborts_the_turn_and_the_chat_goes_on(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(text="counting " + " ".join(str(i) for i in range(200)), delay=0.05),
        Reply(text="Fine, stopping there."),
    )
    chat = ChatProcess(workspace)
    chat.expect("> ")
    chat.send("count to 200 slowly")
    chat.expect("counting")
    chat.process.send_signal(signal.SIGINT)
    chat.expect("aborted")
    chat.send("ok stop")
    chat.expect("Fine, stopping there.")
    assert chat.close() == 0
    path = latest_session_path(workspace.agent_dir, workspace.project)
    assert path is not None
    roles = [(m.role, getattr(m, "stop_reason", "")) for m in Session.load(path).messages()]
    assert roles == [("user", ""), ("assistant", "aborted"), ("user", ""), ("assistant", "stop")]


@one_protocol
def test_chat_continue_keeps_the_session(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="first answer"), Reply(text="second answer"))
    chat = ChatProcess(workspace)
    chat.expect("> ")
    chat.send("first question")
    chat.expect("first answer")
    chat.close()
    again = ChatProcess(workspace, "--continue")
    again.expect("> ")
    again.send("second question")
    again.expect("second answer")
    again.close()
    assert "first question" in str(provider.requests[1].body)
