"""The whole engine through the command line: thinking, model switching, retries, compaction, accounting,
project context, skills and todos, each checked in what the scripted provider received or what the user sees.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from miniroom.engine.session import Session
from miniroom.engine.session_index import latest_session_path
from miniroom.llm.messages import ToolResultMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.cli.test_chat import ChatProcess
from tests.conftest import Workspace

ANTHROPIC = "anthropic-messages"
OPENAI = "openai-completions"
anthropic_only = pytest.mark.parametrize("workspace", [ANTHROPIC], indirect=True)
openai_only = pytest.mark.parametrize("workspace", [OPENAI], indirect=True)

# US dollars per million tokens
PRICES = {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}


def protocol(workspace: Workspace) -> str:
    return workspace.env["MINI_API"]


def write_project_file(workspace: Workspace, name: str, text: str) -> None:
    folder = workspace.project / ".miniroom"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)


def write_models_json(workspace: Workspace, **model: Any) -> None:
    """MINI_AGENT_DIR/models.json (Pi's format) describing the scripted provider's two models."""
    workspace.agent_dir.mkdir(parents=True, exist_ok=True)
    models = [{"id": "test-model", **model}, {"id": "other-model", **model}]
    document = {"providers": {"scripted": {"models": models}}}
    (workspace.agent_dir / "models.json").write_text(json.dumps(document, indent=2))


def records(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def of_type(stdout: str, kind: str) -> list[dict[str, Any]]:
    return [record for record in records(stdout) if record["type"] == kind]


def system_text(body: dict[str, Any]) -> str:
    if "system" in body:
        return "".join(block["text"] for block in body["system"])
    return "".join(m["content"] for m in body["messages"] if m["role"] == "system")


def conversation(body: dict[str, Any]) -> str:
    """The messages of a request (no system prompt) as JSON text."""
    return json.dumps([m for m in body["messages"] if m.get("role") != "system"])


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] if "function" in t else t["name"] for t in body.get("tools") or []]


def latest_session(workspace: Workspace) -> Session:
    path = latest_session_path(workspace.agent_dir, workspace.project)
    assert path is not None
    return Session.load(path)


# 3. Thinking


@pytest.mark.parametrize("level", ["high", "off", "low"])
def test_the_model_suffix_sets_thinking(workspace: Workspace, provider: ScriptedProvider, level: str) -> None:
    provider.script(Reply(text="ok"))
    result = workspace.run("run", "--model", f"scripted/test-model:{level}", "--json", "hi")
    assert result.returncode == 0, result.stderr
    assert records(result.stdout)[0]["thinking"] == level
    body = provider.requests[0].body
    assert body["model"] == "test-model"
    if protocol(workspace) == ANTHROPIC:
        if level == "off":
            assert "thinking" not in body
        else:
            thinking = body["thinking"]
            assert thinking["type"] == "enabled"
            assert 1024 <= thinking["budget_tokens"] < body["max_tokens"]
        assert "reasoning_effort" not in body
    else:
        assert "thinking" not in body
        if level == "off":
            assert "reasoning_effort" not in body
        else:
            assert body["reasoning_effort"] == level


def test_no_suffix_means_medium(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="ok"))
    result = workspace.run("run", "--json", "hi")
    assert records(result.stdout)[0]["thinking"] == "medium"
    body = provider.requests[0].body
    if protocol(workspace) == ANTHROPIC:
        assert body["thinking"]["type"] == "enabled"
    else:
        assert body["reasoning_effort"] == "medium"


def test_profile_thinking_level_wins_over_the_suffix(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_project_file(workspace, "miniagent.yml", "profiles:\n  quiet:\n    thinkingLevel: off\n")
    workspace.env["AGENT_BACKEND"] = "mini:quiet"
    provider.script(Reply(text="ok"), Reply(text="ok"))
    result = workspace.run("run", "--model", "scripted/test-model:high", "--json", "hi")
    assert result.returncode == 0, result.stderr
    assert records(result.stdout)[0]["thinking"] == "off"
    body = provider.requests[0].body
    assert "thinking" not in body
    assert "reasoning_effort" not in body
    # On resume the level frozen with the session still wins over a new suffix.
    provider.script(Reply(text="ok"))
    resumed = workspace.run("run", "--continue", "--model", "scripted/test-model:high", "--json", "again")
    assert resumed.returncode == 0, resumed.stderr
    assert records(resumed.stdout)[0]["thinking"] == "off"
    assert of_type(resumed.stdout, "session_recreated") == []
    body = provider.requests[1].body
    assert "thinking" not in body
    assert "reasoning_effort" not in body
    # Another level in the settings is another session: it takes over the history with the new level.
    workspace.env["MINI_PROFILE_THINKING_LEVEL"] = "low"
    del workspace.env["AGENT_BACKEND"]
    switched = workspace.run("run", "--continue", "--model", "scripted/test-model:high", "--json", "more")
    assert switched.returncode == 0, switched.stderr
    assert records(switched.stdout)[0]["thinking"] == "low"
    (recreated,) = of_type(switched.stdout, "session_recreated")
    assert recreated["changed"] == {"thinkingLevel": {"was": "off", "now": "low"}}
    assert "again" in conversation(provider.requests[2].body)


@anthropic_only
def test_max_output_tokens_and_thinking_budget_reach_the_request(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="ok"), Reply(text="ok"), Reply(text="ok"))
    assert workspace.run("run", "--model", "scripted/test-model:high", "hi").returncode == 0
    default_max = provider.requests[0].body["max_tokens"]
    write_project_file(
        workspace,
        "miniagent.yml",
        "profiles:\n  small:\n    maxOutputTokens: 8000\n  budget:\n    thinkingBudget: 2048\n",
    )
    workspace.env["AGENT_BACKEND"] = "mini:small"
    assert workspace.run("run", "--model", "scripted/test-model:high", "hi").returncode == 0
    small = provider.requests[1].body
    assert small["max_tokens"] == 8000 != default_max
    assert small["thinking"]["budget_tokens"] < 8000  # the budget leaves room for the answer
    workspace.env["AGENT_BACKEND"] = "mini:budget"
    assert workspace.run("run", "--model", "scripted/test-model:high", "hi").returncode == 0
    assert provider.requests[2].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@openai_only
def test_max_output_tokens_on_the_openai_protocol(workspace: Workspace, provider: ScriptedProvider) -> None:
    workspace.env["MINI_PROFILE_MAX_OUTPUT_TOKENS"] = "7777"
    provider.script(Reply(text="ok"))
    assert workspace.run("run", "hi").returncode == 0
    assert provider.requests[0].body["max_tokens"] == 7777


# 4. Switching model and thinking mid-dialog


def test_continue_with_another_model_keeps_the_conversation(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(text="The answer is 42.", usage=(100, 10, 0, 0)),
        Reply(text="Still 42.", usage=(200, 20, 50, 0)),
    )
    first = workspace.run("run", "--json", "what is the answer?")
    assert first.returncode == 0, first.stderr
    session_id = records(first.stdout)[0]["id"]
    second = workspace.run("run", "--continue", "--model", "scripted/other-model:low", "--json", "sure?")
    assert second.returncode == 0, second.stderr
    header = records(second.stdout)[0]
    assert (header["id"], header["model"], header["thinking"]) == (session_id, "scripted/other-model", "low")
    body = provider.requests[1].body
    assert body["model"] == "other-model"
    messages = conversation(body)
    assert "what is the answer?" in messages
    assert "The answer is 42." in messages
    assert "sure?" in messages
    if protocol(workspace) == OPENAI:
        assert body["reasoning_effort"] == "low"
    else:
        assert body["thinking"]["type"] == "enabled"
    shown = workspace.run("sessions", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    assert "assistant (test-model): The answer is 42." in shown.stdout
    assert "assistant (other-model): Still 42." in shown.stdout
    assert "tokens: input 300, output 30, cache read 50, cache write 0" in shown.stdout


def test_continue_with_changed_settings_recreates_the_session_and_says_so(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_project_file(workspace, "miniagent.yml", "profiles:\n  safe:\n    toolCallTimeout: 60\n")
    provider.script(*[Reply(text=f"answer {n}") for n in range(4)])
    first = workspace.run("run", "--json", "FIRST-QUESTION")
    first_id = records(first.stdout)[0]["id"]
    workspace.env["AGENT_BACKEND"] = "mini:safe"
    second = workspace.run("run", "--continue", "SECOND-QUESTION")
    assert second.returncode == 0, second.stderr
    (line,) = [row for row in second.stderr.splitlines() if "settings changed" in row]
    assert f"since session {first_id[:8]} (toolCallTimeout 300 → 60)" in line
    assert "goes on in a new session" in line
    assert "FIRST-QUESTION" in conversation(provider.requests[1].body)  # the history came along
    new_session = latest_session(workspace)
    assert new_session.id != first_id
    assert new_session.header["parentSession"].endswith(f"{first_id}.jsonl")
    # the new session keeps the new settings: the next resume with them is quiet and stays in it
    third = workspace.run("run", "--continue", "--json", "THIRD-QUESTION")
    assert third.returncode == 0, third.stderr
    assert records(third.stdout)[0]["id"] == new_session.id
    assert of_type(third.stdout, "session_recreated") == []
    assert "FIRST-QUESTION" in conversation(provider.requests[2].body)
    # the retry policy is frozen with the session too
    write_project_file(workspace, "retry.yml", "maxAttempts: 2\n")
    fourth = workspace.run("run", "--continue", "--json", "FOURTH-QUESTION")
    (recreated,) = of_type(fourth.stdout, "session_recreated")
    assert recreated["previous"] == new_session.id
    assert recreated["id"] == records(fourth.stdout)[0]["id"] != new_session.id
    assert recreated["changed"] == {"maxAttempts": {"was": 10, "now": 2}}


@openai_only
def test_chat_continue_with_changed_settings_says_so(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="first answer"), Reply(text="second answer"))
    assert workspace.run("run", "first question").returncode == 0
    workspace.env["MINI_PROFILE_DISABLED_TOOLS"] = "bash"
    chat = ChatProcess(workspace, "--continue")
    try:
        chat.expect("disabledTools unset → bash")
        chat.send("second question")
        chat.expect("second answer")
    finally:
        assert chat.close() == 0
    assert "first question" in conversation(provider.requests[1].body)
    assert "bash" not in tool_names(provider.requests[1].body)


def test_continue_without_a_model_keeps_the_switched_model(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    del workspace.env["MODEL"]
    provider.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    assert workspace.run("run", "--model", "scripted/test-model", "one").returncode == 0
    assert workspace.run("run", "--continue", "--model", "scripted/other-model", "two").returncode == 0
    assert workspace.run("run", "--continue", "three").returncode == 0
    assert [r.body["model"] for r in provider.requests] == ["test-model", "other-model", "other-model"]


@openai_only
def test_chat_model_and_thinking_commands_apply_to_the_next_request(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="first answer"), Reply(text="second answer"), Reply(text="third answer"))
    chat = ChatProcess(workspace)
    try:
        chat.expect("> ")
        chat.send("first question")
        chat.expect("first answer")
        chat.send("/model scripted/other-model")
        chat.expect("switched to scripted/other-model")
        chat.send("second question")
        chat.expect("second answer")
        chat.send("/thinking low")
        chat.expect("thinking: low")
        chat.send("third question")
        chat.expect("third answer")
    finally:
        assert chat.close() == 0
    first, second, third = (request.body for request in provider.requests)
    assert first["model"] == "test-model"
    assert first["reasoning_effort"] == "medium"
    assert second["model"] == "other-model"
    assert "first question" in conversation(second)
    assert "first answer" in conversation(second)
    assert second["reasoning_effort"] == "medium"
    assert third["model"] == "other-model"
    assert third["reasoning_effort"] == "low"
    assert "second answer" in conversation(third)


@openai_only
def test_chat_model_command_without_a_provider_is_an_error(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="still here"))
    chat = ChatProcess(workspace)
    try:
        chat.expect("> ")
        chat.send("/model nonsense")
        chat.expect('✗ "nonsense" names no provider')
        chat.expect('"scripted/nonsense"')
        chat.send("/model scripted/test-model:hgih")
        chat.expect("did you mean high?")
        chat.send("question")
        chat.expect("still here")
    finally:
        assert chat.close() == 0
    assert provider.requests[0].body["model"] == "test-model"


@openai_only
def test_chat_thinking_command_cannot_override_the_profile_level(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    workspace.env["MINI_PROFILE_THINKING_LEVEL"] = "high"
    provider.script(Reply(text="answer"))
    chat = ChatProcess(workspace)
    try:
        chat.expect("> ")
        chat.send("/thinking off")
        chat.expect("wins over /thinking")
        chat.send("question")
        chat.expect("answer")
    finally:
        assert chat.close() == 0
    assert provider.requests[0].body["reasoning_effort"] == "high"


# 5. Retries

RETRY_YML = "maxAttempts: 3\nretryIntervalSeconds: 1\n"


def test_a_rate_limit_is_retried_and_the_answer_arrives(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_project_file(workspace, "retry.yml", RETRY_YML)
    provider.script(Reply.error(429, "rate_limit_error", "slow down"), Reply(text="made it"))
    started = time.monotonic()
    result = workspace.run("run", "--json", "hi")
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    (retry,) = of_type(result.stdout, "retry")
    assert retry["model"] == "scripted/test-model"
    assert (retry["attempt"], retry["max_attempts"], retry["wait_seconds"]) == (1, 3, 1)
    assert "429" in retry["cause"]
    assert of_type(result.stdout, "turn_end")[0]["text"] == "made it"
    assert len(provider.requests) == 2
    assert provider.requests[1].body == provider.requests[0].body  # the same request again
    assert 1 <= elapsed < 30  # the pause from retry.yml, not the 60 s default


@anthropic_only
def test_retries_stop_after_max_attempts(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_project_file(workspace, "retry.yml", "maxAttempts: 2\nretryIntervalSeconds: 1\n")
    provider.script(
        Reply.error(503, "overloaded_error", "busy"),
        Reply.error(503, "overloaded_error", "still busy"),
        Reply(text="never sent"),
    )
    result = workspace.run("run", "hi")
    assert result.returncode == 1
    assert len(provider.requests) == 2
    assert "attempt 1 of 2" in result.stderr
    assert "still busy" in result.stderr
    assert result.stdout == ""


@openai_only
def test_chat_shows_a_retry_as_its_own_line(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_project_file(workspace, "retry.yml", RETRY_YML)
    provider.script(Reply.error(429, "rate_limit_exceeded", "slow down"), Reply(text="made it"))
    chat = ChatProcess(workspace)
    try:
        chat.expect("> ")
        chat.send("hi")
        out = chat.expect("made it")
    finally:
        assert chat.close() == 0
    lines = [line.removeprefix("> ") for line in out.splitlines()]  # the prompt shares the turn's first line
    retry_lines = [line for line in lines if "attempt 1 of 3" in line]
    assert len(retry_lines) == 1
    assert retry_lines[0].startswith("⚠ scripted/test-model: attempt 1 of 3 failed")
    assert "429" in retry_lines[0]
    assert "retrying in 1 s" in retry_lines[0]
    assert "✗" not in out  # a retry is not an error


@pytest.mark.parametrize(
    "error",
    [
        Reply.error(402, "billing_error", "Your credit balance is too low."),
        Reply.error(429, "insufficient_quota", "You exceeded your current quota, please check your plan."),
    ],
    ids=["402-credits", "429-quota"],
)
@anthropic_only
def test_a_quota_error_fails_after_one_request(
    workspace: Workspace, provider: ScriptedProvider, error: Reply
) -> None:
    # A long pause: had the error been retried, the run would take 30 s or more.
    write_project_file(workspace, "retry.yml", "maxAttempts: 3\nretryIntervalSeconds: 30\n")
    provider.script(error, Reply(text="never sent"), Reply(text="never sent"))
    started = time.monotonic()
    result = workspace.run("run", "--json", "hi")
    assert time.monotonic() - started < 20  # no pause was waited out
    assert result.returncode == 1
    assert len(provider.requests) == 1
    assert of_type(result.stdout, "retry") == []
    (failure,) = of_type(result.stdout, "error")
    assert failure["kind"] == "quota"


@anthropic_only
def test_a_corrupt_retry_file_warns_once_and_the_defaults_apply(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_project_file(workspace, "retry.yml", "maxAttempts: [3\nretryIntervalSeconds: 1\n")
    provider.script(Reply(text="fine"))
    result = workspace.run("run", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "fine\n"
    warnings = [line for line in result.stderr.splitlines() if "retry.yml" in line]
    assert len(warnings) == 1, result.stderr
    assert "default" in warnings[0]
    assert "60 s" in warnings[0]


# 6. Compaction


@anthropic_only
def test_compaction_through_the_cli(workspace: Workspace, provider: ScriptedProvider) -> None:
    # Compaction starts when the context passes half of this window (1,000 tokens).
    write_models_json(workspace, contextWindow=2000, maxTokens=1000)
    provider.script(
        Reply(text="first-long " + "alpha " * 600, usage=(600, 50, 0, 0)),
        Reply(text="second-long " + "beta " * 600, usage=(900, 200, 0, 0)),
        Reply(text="SUMMARY-OF-THE-FIRST-TURN", usage=(700, 30, 0, 0)),
        Reply(text="third answer", usage=(400, 10, 0, 0)),
        Reply(text="fourth answer", usage=(450, 10, 0, 0)),
    )
    assert workspace.run("run", "FIRST-PROMPT tell me a lot").returncode == 0
    assert workspace.run("run", "--continue", "SECOND-PROMPT more").returncode == 0
    third = workspace.run("run", "--continue", "--json", "THIRD-PROMPT and?")
    assert third.returncode == 0, third.stderr
    (compaction,) = of_type(third.stdout, "compaction")
    assert compaction["reason"] == "threshold"
    assert of_type(third.stdout, "turn_end")[0]["text"] == "third answer"
    summarizing, answering = provider.requests[2].body, provider.requests[3].body
    assert "FIRST-PROMPT" in conversation(summarizing)  # the summarizer read the older turn
    assert "FIRST-PROMPT" not in conversation(answering)
    assert "SUMMARY-OF-THE-FIRST-TURN" in conversation(answering)
    assert "SECOND-PROMPT" in conversation(answering)  # the recent turn stays verbatim
    fourth = workspace.run("run", "--continue", "FOURTH-PROMPT")
    assert fourth.returncode == 0, fourth.stderr
    resumed = conversation(provider.requests[4].body)
    assert "SUMMARY-OF-THE-FIRST-TURN" in resumed
    assert "FIRST-PROMPT" not in resumed
    assert "first-long" not in resumed
    assert "FOURTH-PROMPT" in resumed
    assert len(provider.requests) == 5


@anthropic_only
def test_compaction_reports_a_smaller_context_after(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_models_json(workspace, contextWindow=2000, maxTokens=1000)
    provider.script(
        Reply(text="first-long " + "alpha " * 600, usage=(600, 50, 0, 0)),
        Reply(text="second-long " + "beta " * 500, usage=(1000, 5, 0, 0)),
        Reply(text="SUMMARY", usage=(700, 5, 0, 0)),
        Reply(text="third answer", usage=(300, 5, 0, 0)),
    )
    assert workspace.run("run", "FIRST-PROMPT").returncode == 0
    assert workspace.run("run", "--continue", "SECOND-PROMPT").returncode == 0
    third = workspace.run("run", "--continue", "--json", "THIRD-PROMPT")
    assert third.returncode == 0, third.stderr
    (compaction,) = of_type(third.stdout, "compaction")
    assert "FIRST-PROMPT" not in conversation(provider.requests[3].body)
    # the kept turns' reported usage measured the old context: it must not count after a compaction
    assert compaction["tokens_after"] < compaction["tokens_before"]


@openai_only
def test_compact_command_in_chat(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_models_json(workspace, contextWindow=2000, maxTokens=1000)
    provider.script(
        Reply(text="answer-one " + "alpha " * 500, usage=(100, 10, 0, 0)),
        Reply(text="answer-two " + "beta " * 500, usage=(150, 10, 0, 0)),
        Reply(text="CHAT-SUMMARY", usage=(100, 10, 0, 0)),
        Reply(text="answer-three", usage=(100, 10, 0, 0)),
    )
    chat = ChatProcess(workspace)
    try:
        chat.expect("> ")
        chat.send("QUESTION-ONE")
        chat.expect("answer-one")
        chat.expect("session $")
        chat.send("/compact")
        chat.expect("not compacted: nothing to compact: the conversation has no earlier part to summarize")
        chat.send("QUESTION-TWO")
        chat.expect("answer-two")
        chat.expect("session $", timeout=10)
        chat.send("/compact")
        chat.expect("compacted")
        chat.send("QUESTION-THREE")
        chat.expect("answer-three")
    finally:
        assert chat.close() == 0
    assert len(provider.requests) == 4
    assert "QUESTION-ONE" in conversation(provider.requests[2].body)
    after = conversation(provider.requests[3].body)
    assert "CHAT-SUMMARY" in after
    assert "QUESTION-ONE" not in after
    assert "QUESTION-TWO" in after


# 7. Accounting


def test_json_usage_records_carry_tokens_and_cost(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_models_json(workspace, cost=PRICES)
    provider.script(
        Reply(tool_calls=[("ls", {"path": "."})], usage=(1000, 200, 4000, 500)),
        Reply(text="done", usage=(2000, 100, 0, 0)),
    )
    result = workspace.run("run", "--json", "look")
    assert result.returncode == 0, result.stderr
    first, second = of_type(result.stdout, "usage")
    cache_write = 500 if protocol(workspace) == ANTHROPIC else 0  # OpenAI reports no cache writes
    request = first["request"]
    assert (request["input"], request["output"], request["cacheRead"], request["cacheWrite"]) == (
        1000,
        200,
        4000,
        cache_write,
    )
    expected = (1000 * 3 + 200 * 15 + 4000 * 0.3 + cache_write * 3.75) / 1e6
    assert request["cost"]["total"] == pytest.approx(expected)
    assert second["request"]["cost"]["total"] == pytest.approx((2000 * 3 + 100 * 15) / 1e6)
    assert second["turn"]["input"] == 3000
    assert second["turn"]["cost"]["total"] == pytest.approx(expected + 0.0075)
    end = of_type(result.stdout, "turn_end")[0]
    assert end["usage"]["cost"]["total"] == pytest.approx(expected + 0.0075)


@anthropic_only
def test_session_totals_include_a_failed_attempt(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_models_json(workspace, cost=PRICES)
    write_project_file(workspace, "retry.yml", RETRY_YML)
    provider.script(
        # The stream breaks after the provider has started (and billed) the answer.
        Reply(text="partial", usage=(5000, 40, 0, 0), error_type="overloaded_error"),
        Reply(text="complete", usage=(3000, 60, 0, 0)),
    )
    result = workspace.run("run", "--json", "hi")
    assert result.returncode == 0, result.stderr
    assert len(of_type(result.stdout, "retry")) == 1
    end = of_type(result.stdout, "turn_end")[0]
    assert end["usage"]["input"] == 8000  # the failed attempt's input tokens are paid too
    session_id = records(result.stdout)[0]["id"]
    shown = workspace.run("sessions", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    assert "tokens: input 8,000," in shown.stdout
    assert f"cost: ${end['usage']['cost']['total']:.4f}" in shown.stdout
    assert end["usage"]["cost"]["total"] >= (8000 * 3) / 1e6


# 8. Project context and skills


def test_claude_md_wins_over_agents_md(workspace: Workspace, provider: ScriptedProvider) -> None:
    (workspace.project / "CLAUDE.md").write_text("claude-rules: use tabs\n")
    (workspace.project / "AGENTS.md").write_text("agents-rules: use spaces\n")
    provider.script(Reply(text="ok"), Reply(text="ok"))
    assert workspace.run("run", "hi").returncode == 0
    system = system_text(provider.requests[0].body)
    assert "claude-rules: use tabs" in system
    assert "agents-rules" not in system
    (workspace.project / "CLAUDE.md").unlink()
    assert workspace.run("run", "hi").returncode == 0
    assert "agents-rules: use spaces" in system_text(provider.requests[1].body)


@anthropic_only
def test_global_claude_md_is_loaded_too(workspace: Workspace, provider: ScriptedProvider) -> None:
    workspace.agent_dir.mkdir(parents=True, exist_ok=True)
    (workspace.agent_dir / "CLAUDE.md").write_text("global-rules: be brief\n")
    (workspace.project / "AGENTS.md").write_text("project-rules: run the tests\n")
    provider.script(Reply(text="ok"))
    assert workspace.run("run", "hi").returncode == 0
    system = system_text(provider.requests[0].body)
    assert "global-rules: be brief" in system
    assert "project-rules: run the tests" in system
    assert system.index("global-rules") < system.index("project-rules")


@anthropic_only
def test_a_cloned_project_cannot_send_a_private_key_through_a_context_link(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    key = workspace.project.parent / "id_rsa"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY----- secret-key-material\n")
    (workspace.project / "CLAUDE.md").symlink_to(key)
    skill = workspace.project / ".claude" / "skills" / "x"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").symlink_to(key)
    provider.script(Reply(text="ok"))
    result = workspace.run("run", "hi")
    assert result.returncode == 0, result.stderr
    assert "secret-key-material" not in json.dumps(provider.requests[0].body)
    assert f"Skipped context file {workspace.project / 'CLAUDE.md'}: it leads to {key}" in result.stderr
    assert f"Skipped skill {skill / 'SKILL.md'}: it leads to {key}" in result.stderr


def _write_skill(workspace: Workspace, body: str) -> None:
    folder = workspace.project / ".claude" / "skills" / "x"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: x\ndescription: Deploys the x service safely\n---\n{body}")


def test_a_skill_is_listed_and_load_skill_returns_it_whole(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    body = "".join(f"step {i:05}: check the x service and carry on\n" for i in range(2500)) + "END-OF-SKILL"
    assert len(body) > 100_000
    _write_skill(workspace, body)
    provider.script(Reply(tool_calls=[("load_skill", {"name": "x"})]), Reply(text="loaded"))
    result = workspace.run("run", "deploy x")
    assert result.returncode == 0, result.stderr
    first, second = provider.requests[0].body, provider.requests[1].body
    system = system_text(first)
    assert "- x: Deploys the x service safely" in system
    assert "Start by loading" in system
    assert "load_skill" in tool_names(first)
    # Every line of the skill comes back, untruncated, in the next request's tool result.
    assert json.dumps(body)[1:-1] in json.dumps(second)


@anthropic_only
def test_disabling_load_skill_drops_only_the_loading_line(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    _write_skill(workspace, "Do it.\n")
    workspace.env["MINI_PROFILE_DISABLED_TOOLS"] = "load_skill"
    provider.script(Reply(text="ok"))
    assert workspace.run("run", "hi").returncode == 0
    body = provider.requests[0].body
    assert "Start by loading" not in system_text(body)
    assert "- x: Deploys the x service safely" in system_text(body)  # the list itself stays
    assert "load_skill" not in tool_names(body)


# 9. todo_write

TODOS = [
    {"content": "Write the tests", "status": "completed"},
    {"content": "Fix the parser", "status": "in_progress"},
    {"content": "Update the docs", "status": "pending"},
]


@anthropic_only
def test_todo_write_result_is_kept_in_the_session(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(tool_calls=[("todo_write", {"todos": TODOS})]), Reply(text="planned"))
    result = workspace.run("run", "plan it")
    assert result.returncode == 0, result.stderr
    results = [m for m in latest_session(workspace).messages() if isinstance(m, ToolResultMessage)]
    assert [m.tool_name for m in results] == ["todo_write"]
    assert not results[0].is_error
    text = results[0].text
    assert "[x] Write the tests" in text
    assert "[>] Fix the parser" in text
    assert "[ ] Update the docs" in text
    assert "[>] Fix the parser" in json.dumps(provider.requests[1].body)


@openai_only
def test_chat_shows_the_todo_list_and_again_on_resume(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(tool_calls=[("todo_write", {"todos": TODOS})]), Reply(text="planned it"))
    chat = ChatProcess(workspace)
    try:
        chat.expect("> ")
        chat.send("plan it")
        out = chat.expect("planned it")
    finally:
        assert chat.close() == 0
    assert "● Todo 3 items (1 in progress)" in out
    for line in ("[x] Write the tests", "[>] Fix the parser", "[ ] Update the docs"):
        assert line in out
    assert "<todos>" not in out  # the stored state line is for the session, not for people
    again = ChatProcess(workspace, "--continue")
    try:
        resumed = again.expect("> ")
    finally:
        assert again.close() == 0
    assert "[>] Fix the parser" in resumed
