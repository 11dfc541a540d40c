"""Settings files that once crashed or hung miniroom: now each is a located problem, at once, anywhere."""

from __future__ import annotations

import os
from itertools import pairwise
from pathlib import Path

import pytest

from miniroom.config.settings_file import MAX_SETTINGS_BYTES
from tests.settings.readers import READERS, YAML_READERS, Reader, located, no_hang

LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]\n" for previous, name in pairwise("abcdefghi")
)
HOSTILE_YAML = {
    "a control character": 'profiles:\n  safe:\n    systemPrompt: "a\x01b"\n',
    "nesting 600 deep": "a: " + "[" * 600 + "]" * 600 + "\n",
    "nesting of mappings": "a:\n" + "".join(" " * depth + "b:\n" for depth in range(1, 200)),
    "a 5,000-digit number": "maxAttempts: " + "9" * 5000 + "\n",
    "10**400 written out": "retryIntervalSeconds: 1" + "0" * 400 + "\n",
    "a base-60 number": "maxAttempts: " + ":".join(["59"] * 2000) + "\n",
    "billion laughs": LAUGHS,
    "a value that contains itself": "a: &a [1, *a]\n",
    "a 13th month": "maxAttempts: 2024-13-45\n",
    "a text tagged as a number": "maxAttempts: !!int many\n",
    "a text tagged as a boolean": "profiles: !!bool maybe\n",
    "an infinite float": "retryIntervalSeconds: 1.0e+400\n",
    "a NUL byte": "a: b\x00\n",
}
HOSTILE_JSON = {
    "nesting 2,000 deep": "[" * 2000 + "]" * 2000,
    "a 5,000-digit number": '{"providers": {"a": {"models": [{"id": "m", "maxTokens": '
    + "9" * 5000
    + "}]}}}",
    "a control character in a string": '{"providers": {"a\x01": {}}}',
}


def check(reader: Reader, path: Path, *, whole_file: bool = False) -> list[str]:
    """The reader's messages for `path`: at least one, each naming the file and (unless the whole file is
    the problem: its kind or size) a line or a key."""
    with no_hang():
        messages = reader.read(path)
    assert messages, f"{reader.name} accepted {path.name}"
    assert all(str(path) in message for message in messages), messages
    assert whole_file or all(located(message, path) for message in messages), messages
    return messages


@pytest.mark.parametrize("text", HOSTILE_YAML.values(), ids=HOSTILE_YAML.keys())
@pytest.mark.parametrize("reader", YAML_READERS, ids=lambda reader: reader.name)
def test_a_hostile_yaml_file_is_a_located_problem(tmp_path: Path, reader: Reader, text: str) -> None:
    path = reader.place(tmp_path)
    path.write_text(text, encoding="utf-8")
    check(reader, path)


@pytest.mark.parametrize("text", HOSTILE_JSON.values(), ids=HOSTILE_JSON.keys())
def test_a_hostile_models_json_is_a_located_problem(tmp_path: Path, text: str) -> None:
    reader = READERS[-1]
    path = reader.place(tmp_path)
    path.write_text(text, encoding="utf-8")
    check(reader, path)


@pytest.mark.parametrize("reader", READERS, ids=lambda reader: reader.name)
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path, reader: Reader) -> None:
    path = reader.place(tmp_path)
    os.mkfifo(path)
    expected = "is a named pipe (FIFO): a settings file must be a regular file"
    assert any(expected in message for message in check(reader, path, whole_file=True))


@pytest.mark.parametrize("reader", READERS, ids=lambda reader: reader.name)
def test_a_link_to_dev_zero_is_refused(tmp_path: Path, reader: Reader) -> None:
    path = reader.place(tmp_path)
    path.symlink_to("/dev/zero")
    expected = "is a character device (a link to /dev/zero): a settings file must be a regular file"
    assert any(expected in message for message in check(reader, path, whole_file=True))


@pytest.mark.parametrize("reader", READERS, ids=lambda reader: reader.name)
def test_a_file_over_the_size_cap_is_refused_saying_the_cap(tmp_path: Path, reader: Reader) -> None:
    path = reader.place(tmp_path)
    path.write_text("#" * (MAX_SETTINGS_BYTES + 1), encoding="utf-8")
    expected = (
        "is 262,145 bytes; a settings file may be at most 256 KiB (262,144 bytes): is it the right file?"
    )
    assert any(expected in message for message in check(reader, path, whole_file=True))


@pytest.mark.slow  # a second or so each: 65,536 values
@pytest.mark.parametrize("reader", YAML_READERS, ids=lambda reader: reader.name)
def test_a_file_of_tiny_values_just_under_the_cap_is_read_without_a_hang(
    tmp_path: Path, reader: Reader
) -> None:
    path = reader.place(tmp_path)
    path.write_text(("- 1\n" * (MAX_SETTINGS_BYTES // 4))[: MAX_SETTINGS_BYTES - 1], encoding="utf-8")
    check(reader, path)  # a list where a mapping belongs: one problem


EXACT = {
    "control": ("a: b\x01\n", "1: contains the control character U+0001, which YAML does not allow: delete "
                "it, or write it as \\x01 inside double quotes"),
    "nesting": ("a: " + "[" * 70 + "]" * 70 + "\n", "1: values are nested more than 64 levels deep; a "
                "settings file needs nothing like it"),
    "digits": ("maxAttempts: " + "9" * 5000 + "\n", "1: maxAttempts: a number 5,000 characters long is far "
               "beyond any setting; check the value, or put it in quotes if it is text"),
    "too large": ("retryIntervalSeconds: 1" + "0" * 20 + "\n", "1: retryIntervalSeconds: must be at most "
                  "2147483647, got 100000000000000000000"),
    "laughs": (LAUGHS, "5: aliases (*name) expand to more than 10,000 values; a settings file needs nothing "
               "like it"),
    "itself": ("a: &a [1, *a]\n", "1: this value contains itself through an alias (*name inside &name); a "
               "settings file needs nothing like it"),
    "tag": ("maxAttempts: !!int many\n", "1: maxAttempts: cannot read this value (invalid literal for int() "
            "with base 10: 'many'); check it, or put it in quotes to make it text"),
    "escape": ('"\\e[31mred": 1\n', "1: \\x1b[31mred: unknown key: the valid keys are retryIntervalSeconds, "
               "maxAttempts"),
}  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), EXACT.values(), ids=EXACT.keys())
def test_each_problem_says_what_and_where(tmp_path: Path, text: str, expected: str) -> None:
    path = READERS[2].place(tmp_path)
    path.write_text(text, encoding="utf-8")
    assert check(READERS[2], path) == [f"{path}:{expected}"]
