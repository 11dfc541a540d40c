"""`miniroom serve` killed (SIGKILL) mid-reply: after the restart each message is answered exactly once.

The kill comes once the agent's first post is visible in the room; the reply it cut off is then finished
in place, no second reply is posted, and the prompt is in the agent's session once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.runtime.serve_process import ServeProcess, turn_state
from tests.runtime.support import agent_entry, write_config

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

HELPER = "@helper:miniroom.local"
PROMPT = "You: what is the plan?"
# Slow enough (about a minute) that the kill always comes mid-stream, whenever the first post shows.
CUT_OFF = Reply(text="The plan, step by step: " * 80, delay=0.5)
WHOLE = "The whole plan, at last."


@pytest.fixture
def serve(tmp_path: Path, provider: ScriptedProvider) -> Iterator[ServeProcess]:
    config = write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    served = ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log")
    served.start()
    try:
        yield served
    finally:
        served.kill()


def kill_once_the_reply_is_posted(serve: ServeProcess) -> dict[str, Any]:
    """Post the question, wait for the agent's first (streaming) post, and kill the server there."""
    serve.post("what is the plan?", txn_id="page-txn-1")
    [reply] = serve.wait_for(lambda: serve.replies_by(HELPER), "the agent's first post")
    assert turn_state(reply["content"]) == "streaming"
    serve.kill()
    return reply


def prompts_in_sessions(agent_dir: Path) -> list[str]:
    """The text of every user message stored in any session file under MINI_AGENT_DIR."""
    found = []
    for path in (agent_dir / "agent-sessions").rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            message = json.loads(line).get("message") or {}
            if message.get("role") == "user":
                found.append("".join(block.get("text", "") for block in message["content"]))
    return found


def test_a_reply_cut_off_by_a_kill_is_finished_in_place_after_the_restart(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    provider.script(CUT_OFF, Reply(text=WHOLE))
    reply = kill_once_the_reply_is_posted(serve)
    serve.start()
    serve.wait_for(lambda: turn_state(serve.shown(reply)) == "done", "the reply to be finished")
    assert serve.shown(reply)["body"] == WHOLE
    assert serve.replies_by(HELPER) == [reply], "the restart posted a second reply"
    assert prompts_in_sessions(tmp_path / "mini") == [PROMPT], "the prompt was stored again"
    rerun = provider.requests[-1].body["messages"]
    assert [message["role"] for message in rerun] == ["user"], "the model saw the cut-off attempt"
    # The page's post, repeated with its transaction id after the crash, is the same message, not a new one.
    question = serve.post("what is the plan?", txn_id="page-txn-1")
    assert question["event_id"] == reply["content"]["m.relates_to"]["event_id"]
    assert serve.stop() == 0
    assert len(provider.requests) == 2


def test_a_kill_between_posting_a_reply_and_recording_it_posts_no_second_reply(
    tmp_path: Path, serve: ServeProcess, provider: ScriptedProvider
) -> None:
    provider.script(CUT_OFF, Reply(text=WHOLE))
    reply = kill_once_the_reply_is_posted(serve)
    # What a kill just after the post, before the runtime wrote down the reply's id, leaves on disk.
    in_flight = tmp_path / "miniroom_data" / "tracking" / "in_flight.json"
    records = json.loads(in_flight.read_text(encoding="utf-8"))
    [record] = [record for by_agent in records.values() for record in by_agent.values()]
    record["reply_id"] = None
    in_flight.write_text(json.dumps(records), encoding="utf-8")
    serve.start()
    serve.wait_for(lambda: turn_state(serve.shown(reply)) == "done", "the reply to be finished")
    assert serve.shown(reply)["body"] == WHOLE
    assert serve.replies_by(HELPER) == [reply], "the restart posted a second reply"
    assert serve.stop() == 0
