"""A settings text's secrets masked where they are written, whatever the YAML form, and put back byte for
byte from the saved text; a file that is not YAML is masked and restored by line."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from miniroom.config.secret_text import masked_text, unmasked_text
from miniroom.config.secrets import MASK, SecretLost

FILE = Path("fetch.yml")
FORMS = {
    "double quotes": ('ApiKey: "sk-1"  # the key\n', f'ApiKey: "{MASK}"  # the key\n'),
    "single quotes": ("ApiKey: 'sk-1'\n", f"ApiKey: '{MASK}'\n"),
    "a block": ("ApiKey: |\n  sk-1\nOther: 1\n", f"ApiKey: |\n  {MASK}\nOther: 1\n"),
    "an escape": ('ApiKey: "sk\\x2d1"\n', f'ApiKey: "{MASK}"\n'),
    "an anchor": ("ApiKey: &key sk-1\nSameKey: *key\n", f"ApiKey: &key {MASK}\nSameKey: *key\n"),
    "a tag": ("ApiKey: !!str sk-1\n", f"ApiKey: !!str {MASK}\n"),
    "a flow list": ("variables: [MINI_API_KEY=sk-1, A=b]\n", f"variables: [MINI_API_KEY={MASK}, A=b]\n"),
    "a comment": ("ApiKey: sk-1   # was sk-1 before\n", f"ApiKey: {MASK}   # was {MASK} before\n"),
    "a number": ("ApiKey: 12345\n", f"ApiKey: {MASK}\n"),
}


@pytest.mark.parametrize(("text", "shown"), FORMS.values(), ids=FORMS.keys())
def test_each_form_is_masked_in_place_and_saved_back_byte_for_byte(text: str, shown: str) -> None:
    assert masked_text(text, FILE)[0] == shown
    assert unmasked_text(shown, text, FILE) == text


def test_a_key_written_twice_keeps_each_of_its_values() -> None:
    text = "ApiKey: sk-old\nApiKey: sk-new\n"
    shown, count = masked_text(text, FILE)
    assert (shown, count) == (f"ApiKey: {MASK}\nApiKey: {MASK}\n", 2)
    assert unmasked_text(shown, text, FILE) == text


def test_a_file_that_is_not_yaml_is_masked_and_restored_by_line() -> None:
    text = (
        "services:\n  - name: A\n    ApiKey: sk-1\n    ProxyUrl: http://u:pw@p\n"
        '    settings: {ExtraHeaders: "Authorization: Bearer b-2\\nAccept: y", Token: t-3}\n'
        "   bad: [\n"
    )
    shown, count = masked_text(text, FILE)
    assert count == 4
    masks = {"sk-1": MASK, ":pw@": f":{MASK}@", "Bearer b-2": MASK, "t-3": MASK}
    assert shown == functools.reduce(lambda text, pair: text.replace(*pair), masks.items(), text)
    fixed = shown.replace("   bad: [\n", "")
    assert unmasked_text(fixed, text, FILE) == text.replace("   bad: [\n", "")


def test_a_masked_comment_moved_to_another_line_is_refused_naming_the_line() -> None:
    text = "ApiKey: sk-1  # sk-1\n"
    shown = masked_text(text, FILE)[0]
    with pytest.raises(SecretLost, match="line 2: the masked value has no saved value to keep"):
        unmasked_text(shown + f"# {MASK}\n", text, FILE)
