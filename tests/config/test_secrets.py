"""Secrets are masked when shown, and each masked value sent back gets the secret of its own place."""

from __future__ import annotations

import re

import pytest

from miniroom.config.secrets import MASK, SecretLost, is_secret_name, masked, unmasked

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
    shown["services"].append({**shown["services"][0], "name": "Serper copy"})
    with pytest.raises(SecretLost, match=r"services\[3\]\.settings\.ApiKey: the masked value has no saved"):
        unmasked(shown, SERVICES)


@pytest.mark.parametrize(
    "name",
    [
        "OPENAI_KEY",
        "X-Api-Key",
        "Authorization",
        "ProxyPassword",
        "GITHUB_TOKEN",
        "client_secret",
        "DB_PASS",
        "AWS_CREDENTIALS",
        "authToken",
        "Cookie",
    ],
)
def test_names_with_a_secret_word_are_secret(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["maxTokens", "MINI_TOOL_KEYS", "author", "passthrough", "UserAgent", "model"]
)
def test_names_without_one_are_not(name: str) -> None:
    assert not is_secret_name(name)


def test_a_service_renamed_in_place_keeps_its_secret() -> None:
    shown = masked(SERVICES)[0]
    shown["services"][0]["name"] = "Serper main"
    assert unmasked(shown, SERVICES)["services"][0]["settings"]["ApiKey"] == "sk-live-1"


def test_variables_of_one_name_keep_their_own_values_and_a_renamed_one_is_refused() -> None:
    saved = {"variables": ["MINI_API_KEY=sk-1", "MINI_API_KEY=sk-2"]}
    shown = masked(saved)[0]
    assert unmasked(shown, saved) == saved
    shown["variables"][1] = f"OTHER_KEY={MASK}"
    with pytest.raises(SecretLost, match=r"variables\[1\]: the masked value has no saved value"):
        unmasked(shown, saved)


def test_header_lines_moved_keep_their_own_secrets() -> None:
    saved = {"ExtraHeaders": "Authorization: Bearer a-1\nX-Api-Key: b-2"}
    sent = {"ExtraHeaders": f"X-Api-Key: {MASK}\nAccept: */*\nAuthorization: {MASK}"}
    assert unmasked(sent, saved) == {"ExtraHeaders": "X-Api-Key: b-2\nAccept: */*\nAuthorization: Bearer a-1"}


@pytest.mark.parametrize(
    ("sent", "reason"),
    [
        ({"ApiKey": f"x{MASK}"}, "only part of the secret is masked"),
        ({"ProxyUrl": f"http://eve:{MASK}@proxy"}, "it moved, or what names it changed"),
        ({"ProxyUrl": f"http://bob@proxy/{MASK}"}, "it is no longer where a secret goes"),
        ({"UserAgent": MASK}, "nothing was saved at this place"),
    ],
)
def test_a_mask_that_cannot_stand_for_its_own_secret_is_refused(sent: dict[str, str], reason: str) -> None:
    saved = {"ApiKey": "sk-1", "ProxyUrl": "http://bob:pw@proxy"}
    with pytest.raises(SecretLost, match=re.escape(reason)):
        unmasked(sent, saved)


def test_a_secret_written_in_another_value_is_masked_there_and_kept_only_as_shown() -> None:
    saved = {"ApiKey": "sk-live-1", "Note": "the key sk-live-1 is the team's"}
    shown = masked(saved)[0]
    assert shown == {"ApiKey": MASK, "Note": f"the key {MASK} is the team's"}
    assert unmasked(shown, saved) == saved
    shown["Note"] = f"it is {MASK}"
    with pytest.raises(SecretLost, match=r"Note: the masked value has no saved value to keep \(no secret"):
        unmasked(shown, saved)


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("$KEY", False),
        ("${KEY}", False),
        ("Bearer ${TOKEN}", False),
        ("Bearer sk-1", True),
        ("${KEY:-sk-1}", True),
    ],
)
def test_references_to_variables_are_no_secrets(value: str, secret: bool) -> None:
    assert masked({"Authorization": value})[0]["Authorization"] == (MASK if secret else value)
