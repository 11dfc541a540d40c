"""The header that carries the session id on every provider request: X-Agent-Session, X-Opencode-Session on
an opencode provider (its id starts with `opencode`, or its address is on opencode.ai), or the profile's."""

from __future__ import annotations

import pytest

from miniroom.agent.assembly import session_header_name, session_headers
from miniroom.agent.profile import ProfileSettings
from miniroom.llm import Model


def model(provider: str, base_url: str, headers: tuple[tuple[str, str], ...] = ()) -> Model:
    return Model("m", provider, "openai-completions", base_url, headers=headers)


@pytest.mark.parametrize(
    ("provider", "base_url", "header"),
    [
        ("opencode-zen", "https://opencode.ai/zen/v1", "X-Opencode-Session"),
        ("opencode-go", "https://gateway.example.com/v1", "X-Opencode-Session"),
        ("custom", "https://opencode.ai/zen/v1", "X-Opencode-Session"),
        ("custom", "https://eu.opencode.ai/v1", "X-Opencode-Session"),
        ("custom", "https://OpenCode.AI:443/v1", "X-Opencode-Session"),
        ("custom", "https://notopencode.ai/v1", "X-Agent-Session"),
        ("custom", "https://opencode.ai.example.com/v1", "X-Agent-Session"),
        ("custom", "https://gateway.example.com/opencode.ai/v1", "X-Agent-Session"),
        ("deepseek", "https://api.deepseek.com/v1", "X-Agent-Session"),
    ],
)
def test_the_header_is_opencodes_only_for_an_opencode_provider_or_address(
    provider: str, base_url: str, header: str
) -> None:
    assert session_header_name(model(provider, base_url), ProfileSettings()) == header


def test_the_profiles_name_wins_and_a_models_json_header_of_that_name_wins_over_the_stamp() -> None:
    settings = ProfileSettings(session_header="X-Team-Session")
    assert session_headers(model("opencode-zen", "https://opencode.ai/v1"), settings, "s1") == {
        "X-Team-Session": "s1"
    }
    given = model("custom", "https://example.com/v1", (("x-team-session", "fixed"),))
    assert session_headers(given, settings, "s1") == {}
