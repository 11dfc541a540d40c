"""Settings freeze with a session; a resume with other settings recreates it, keeping the history."""

from __future__ import annotations

from pathlib import Path

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.agent.minimal import CliMode
from miniroom.agent.modes import switch_mode
from miniroom.agent.profile import ProfileSettings
from miniroom.agent.session_settings import settings_changes
from miniroom.engine.retry_policy import RetryPolicy
from miniroom.engine.session import Session
from miniroom.llm.messages import AssistantMessage, TextContent, UserMessage


def _env(tmp_path: Path, **variables: str) -> dict[str, str]:
    return {
        "MINI_AGENT_DIR": str(tmp_path / "mini"),
        "MODEL": "scripted/test-model",
        "MINI_BASE_URL": "http://127.0.0.1:9",
        "MINI_API": "anthropic-messages",
        "MINI_API_KEY": "k",
        **variables,
    }


def test_changes_name_each_setting_as_people_write_it() -> None:
    was = (ProfileSettings(), RetryPolicy())
    now = (ProfileSettings(tool_call_timeout=60, disabled_tools=("bash",)), RetryPolicy(max_attempts=3))
    assert settings_changes(was, now) == {
        "disabledTools": (None, ["bash"]),
        "toolCallTimeout": (300, 60),
        "maxAttempts": (10, 3),
    }
    assert settings_changes(was, was) == {}


def test_a_whole_number_of_seconds_shows_alike_before_and_after() -> None:
    was = (ProfileSettings(), RetryPolicy(interval_seconds=1.0))  # as a session's entry reads it back
    now = (ProfileSettings(), RetryPolicy(interval_seconds=60))  # as retry.yml gives it
    changes = settings_changes(was, now)
    assert changes == {"retryIntervalSeconds": (1, 60)}
    assert [type(value) for value in changes["retryIntervalSeconds"]] == [int, int]
    assert settings_changes(was, (ProfileSettings(), RetryPolicy(interval_seconds=0.5))) == {
        "retryIntervalSeconds": (1, 0.5)
    }


def test_a_session_at_a_fixed_path_is_recreated_in_place_and_the_old_file_kept(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "thread.jsonl"
    choice = SessionChoice(path=path)
    first = build_agent(None, tmp_path, _env(tmp_path), choice)
    first.session.append_message(UserMessage.of_text("EARLIER-QUESTION"))
    first.session.append_message(AssistantMessage([TextContent("EARLIER-ANSWER")]))
    first.session.close()
    old_id = first.session.id
    again = build_agent(None, tmp_path, _env(tmp_path), choice)
    again.session.close()
    assert again.session.id == old_id  # nothing changed: the same session
    assert again.session.recreated_from is None

    changed = build_agent(None, tmp_path, _env(tmp_path, MINI_PROFILE_TOOL_CALL_TIMEOUT="60"), choice)
    changed.session.close()
    recreated = changed.session.recreated_from
    assert recreated is not None
    assert recreated.changes == {"toolCallTimeout": (300, 60)}
    assert changed.session.path == path  # the runtime finds it where it always looks
    assert changed.session.id == old_id  # the conversation keeps its id; the old file is a backup
    assert changed.config.tool_timeout == 60
    kept = Session.load(recreated.previous_path)  # the previous file, whole, beside it
    assert kept.id == old_id
    assert recreated.previous_path.parent == path.parent
    reopened = Session.load(path)
    assert reopened.header["parentSession"] == str(recreated.previous_path)
    assert [m.text for m in reopened.history()] == ["EARLIER-QUESTION", "EARLIER-ANSWER"]
    assert [m.text for m in changed.messages] == ["EARLIER-QUESTION", "EARLIER-ANSWER"]


def test_a_recreated_session_goes_on_with_the_fetch_and_search_lists_the_conversation_started_with(
    tmp_path: Path,
) -> None:
    fetch_yml = tmp_path / ".miniroom" / "fetch.yml"
    fetch_yml.parent.mkdir()
    fetch_yml.write_text("services:\n  - name: A\n    type: Direct\n", encoding="utf-8")
    choice = SessionChoice(path=tmp_path / "sessions" / "thread.jsonl")
    build_agent(None, tmp_path, _env(tmp_path), choice).session.close()
    fetch_yml.write_text("services:\n  - name: A\n    type: Direct\n    enabled: false\n", encoding="utf-8")
    changed = build_agent(None, tmp_path, _env(tmp_path, MINI_PROFILE_TOOL_CALL_TIMEOUT="60"), choice)
    changed.session.close()
    assert changed.session.recreated_from is not None
    assert "fetch" in [tool.name for tool in changed.config.tools]
    again = build_agent(None, tmp_path, _env(tmp_path, MINI_PROFILE_TOOL_CALL_TIMEOUT="60"), choice)
    again.session.close()
    assert again.session.recreated_from is None
    assert "fetch" in [tool.name for tool in again.config.tools]


def test_switching_mode_in_a_chat_keeps_its_fetch_and_search_lists(tmp_path: Path) -> None:
    fetch_yml = tmp_path / ".miniroom" / "fetch.yml"
    fetch_yml.parent.mkdir()
    fetch_yml.write_text("services:\n  - name: A\n    type: Direct\n", encoding="utf-8")
    agent = build_agent(None, tmp_path, _env(tmp_path), SessionChoice())
    fetch_yml.write_text("services:\n  - name: A\n    type: Direct\n    enabled: false\n", encoding="utf-8")
    switch_mode(agent, _env(tmp_path), CliMode(minimal=False))
    agent.session.close()
    assert "fetch" in [tool.name for tool in agent.config.tools]
