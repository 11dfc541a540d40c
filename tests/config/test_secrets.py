"""Secrets are masked when shown and put back when the masked value comes back unchanged."""

from __future__ import annotations

import pytest

from miniroom.config.secrets import MASK, SecretLost, masked, unmasked

SERVICES = {
    "services": [
        {"name": "Serper", "type": "Serper", "settings": {"ApiKey": "sk-live-1", "TimeoutSec": 30}},
        {"name": "Env", "type": "Brave", "settings": {"ApiKey": "$BRAVE_API_KEY"}},
        {
            "name": "Proxy",
            "type": "Proxied",
            "settings": {"ProxyPassword": "hunter2", "ProxyUrl": "http://p"},
        },
    ]
}
CONFIG = {"models": {"default": {"model": "a/b", "variables": ["MINI_API_KEY=sk-9", "MINI_API=openai"]}}}


def test_keys_passwords_and_key_variables_are_masked_and_references_are_not() -> None:
    shown, values = masked(SERVICES)
    settings = [service["settings"] for service in shown["services"]]
    assert settings[0] == {"ApiKey": MASK, "TimeoutSec": 30}
    assert settings[1] == {"ApiKey": "$BRAVE_API_KEY"}
    assert settings[2]["ProxyPassword"] == MASK
    assert values == ["sk-live-1", "hunter2"]
    assert masked(CONFIG)[0]["models"]["default"]["variables"] == [f"MINI_API_KEY={MASK}", "MINI_API=openai"]


def test_masked_values_come_back_from_the_saved_file_even_when_entries_moved() -> None:
    shown = masked(SERVICES)[0]
    shown["services"].reverse()
    shown["services"][0]["settings"]["ProxyUrl"] = "http://q"
    restored = unmasked(shown, SERVICES)
    by_name = {service["name"]: service["settings"] for service in restored["services"]}
    assert by_name["Serper"]["ApiKey"] == "sk-live-1"
    assert by_name["Proxy"] == {"ProxyPassword": "hunter2", "ProxyUrl": "http://q"}


def test_a_masked_variable_line_keeps_its_saved_value() -> None:
    shown = masked(CONFIG)[0]
    shown["models"]["default"]["variables"].append("MODEL_X=1")
    restored = unmasked(shown, CONFIG)
    assert restored["models"]["default"]["variables"] == ["MINI_API_KEY=sk-9", "MINI_API=openai", "MODEL_X=1"]


def test_a_typed_secret_replaces_the_saved_one() -> None:
    shown = masked(SERVICES)[0]
    shown["services"][0]["settings"]["ApiKey"] = "sk-new"
    assert unmasked(shown, SERVICES)["services"][0]["settings"]["ApiKey"] == "sk-new"


def test_a_masked_secret_with_nothing_saved_to_keep_is_refused_naming_where() -> None:
    shown = masked(SERVICES)[0]
    shown["services"][0]["name"] = "Serper copy"
    with pytest.raises(SecretLost, match=r"services\[0\]\.settings\.ApiKey: the masked value has no saved"):
        unmasked(shown, SERVICES)
