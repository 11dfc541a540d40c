"""New settings laid over a YAML file's text keep what people wrote around them."""

from __future__ import annotations

import yaml

from miniroom.config.yaml_edit import updated_text

PROFILES = """\
# Profiles of this project
profiles:
  safe:                       # no shell here
    disabledTools:
      - bash   # never
    toolCallTimeout: 60
  readonly:
    enabledTools: [read, grep]
"""


def test_a_changed_value_keeps_every_comment_and_the_rest_of_the_text() -> None:
    data = yaml.safe_load(PROFILES)
    data["profiles"]["safe"]["toolCallTimeout"] = 120
    assert updated_text(PROFILES, data) == PROFILES.replace("60", "120")


def test_unchanged_data_gives_back_the_same_text() -> None:
    assert updated_text(PROFILES, yaml.safe_load(PROFILES)) == PROFILES


def test_a_new_profile_keeps_its_place_and_the_others_their_comments() -> None:
    data = yaml.safe_load(PROFILES)
    profiles = data["profiles"]
    data["profiles"] = {"safe": profiles["safe"], "draft": {"toolCallTimeout": 900}, **profiles}
    text = updated_text(PROFILES, data)
    assert yaml.safe_load(text) == data
    assert list(yaml.safe_load(text)["profiles"]) == ["safe", "draft", "readonly"]
    assert "# no shell here" in text
    assert "# never" in text


def test_a_deleted_key_goes_and_the_indentation_stays() -> None:
    data = yaml.safe_load(PROFILES)
    del data["profiles"]["readonly"]
    text = updated_text(PROFILES, data)
    assert "readonly" not in text
    assert "      - bash   # never\n" in text


def test_text_the_loaders_would_read_as_no_text_is_quoted() -> None:
    text = updated_text("", {"profiles": {"fast": {"thinkingLevel": "off", "sessionHeader": "30"}}})
    assert yaml.safe_load(text) == {"profiles": {"fast": {"thinkingLevel": "off", "sessionHeader": "30"}}}


def test_a_multi_line_prompt_is_written_as_a_block() -> None:
    prompt = "You are terse.\nAnswer in one line."
    text = updated_text(None, {"profiles": {"terse": {"systemPrompt": prompt}}})
    assert "systemPrompt: |-\n      You are terse.\n      Answer in one line.\n" in text
    assert yaml.safe_load(text)["profiles"]["terse"]["systemPrompt"] == prompt


def test_a_broken_file_is_replaced_by_the_new_data() -> None:
    text = updated_text("retryIntervalSeconds: [oops\n", {"maxAttempts": 3})
    assert yaml.safe_load(text) == {"maxAttempts": 3}


def test_a_list_keeps_the_comments_of_the_items_that_stay() -> None:
    original = "bot_accounts:\n- '@a:x'  # the bridge\n- '@b:x'\n"
    text = updated_text(original, {"bot_accounts": ["@a:x", "@c:x", "@d:x"]})
    assert "# the bridge" in text
    assert yaml.safe_load(text) == {"bot_accounts": ["@a:x", "@c:x", "@d:x"]}
    assert text.startswith("bot_accounts:\n- '@a:x'  # the bridge\n")


def test_true_stays_different_from_one() -> None:
    text = updated_text("flag: true\n", {"flag": 1})
    assert yaml.safe_load(text) == {"flag": 1}
