"""The retry policy from `.miniroom/retry.yml`: defaults, values, and a corrupt file never breaking a chat."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.agent.retry import check_retry_file, load_retry_policy
from miniroom.engine import RetryPolicy


def write_retry(project: Path, text: str | bytes) -> Path:
    path = project / ".miniroom" / "retry.yml"
    path.parent.mkdir(exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_defaults_are_a_60_second_pause_and_10_attempts() -> None:
    assert RetryPolicy() == RetryPolicy(interval_seconds=60, max_attempts=10)


def test_no_file_means_the_defaults_and_no_warning(tmp_path: Path) -> None:
    assert load_retry_policy(tmp_path) == (RetryPolicy(), [])


@pytest.mark.parametrize(
    ("text", "policy"),
    [
        ("retryIntervalSeconds: 5\nmaxAttempts: 3\n", RetryPolicy(5, 3)),
        ("maxAttempts: 1\n", RetryPolicy(60, 1)),
        ("retryIntervalSeconds: 2\n", RetryPolicy(2, 10)),
        ("", RetryPolicy()),
        ("# nothing set\n", RetryPolicy()),
        ("{}\n", RetryPolicy()),
        # an empty value means "back to the default"
        ("retryIntervalSeconds:\nmaxAttempts: 4\n", RetryPolicy(60, 4)),
        ("retryIntervalSeconds: 7\nmaxAttempts: ''\n", RetryPolicy(7, 10)),
    ],
)
def test_the_file_sets_the_policy(tmp_path: Path, text: str, policy: RetryPolicy) -> None:
    path = write_retry(tmp_path, text)
    assert load_retry_policy(tmp_path) == (policy, [])
    assert check_retry_file(path) == []


CORRUPT = [
    ("retryIntervalSeconds: [60\n",
     "line 2: not valid YAML: did not find expected ',' or ']'; check the indentation and quoting "
     "there"),
    ("- 60\n- 10\n", "line 1: must be a mapping of keys to values, got a list"),
    ("just text\n", 'line 1: must be a mapping of keys to values, got "just text"'),
    ("maxAttempts: 0\n", "line 1: maxAttempts: must be a whole number above zero, got 0"),
    ("maxAttempts: -3\n", "line 1: maxAttempts: must be a whole number above zero, got -3"),
    ("retryIntervalSeconds: 1.5\n",
     "line 1: retryIntervalSeconds: must be a whole number above zero, got 1.5"),
    ("retryIntervalSeconds: soon\n",
     'line 1: retryIntervalSeconds: must be a whole number above zero, got "soon"'),
    ("maxAttempts: true\n", "line 1: maxAttempts: must be a whole number above zero, got true"),
    ("maxAttempts: 3\nmaxAttempts: 4\n",
     "line 2: maxAttempts: is written twice (lines 1 and 2); YAML keeps only the last: delete one"),
    ("maxAttempts: 3\nretries: 4\n",
     "line 2: retries: unknown key: the valid keys are retryIntervalSeconds, maxAttempts"),
    ("maxAttempts: 0\nretryInterval: 4\n",
     "line 1: maxAttempts: must be a whole number above zero, got 0; line 2: retryInterval: unknown key: did "
     "you mean retryIntervalSeconds? the valid keys are retryIntervalSeconds, maxAttempts"),
    (b"maxAttempts: \xff\n", "line 1: is not UTF-8 text (byte 0xff): save it as UTF-8"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "what"), CORRUPT)
def test_a_corrupt_file_gives_the_defaults_and_one_warning(
    tmp_path: Path, text: str | bytes, what: str
) -> None:
    path = write_retry(tmp_path, text)
    policy, warnings = load_retry_policy(tmp_path)
    assert policy == RetryPolicy()
    assert warnings == [
        f"{path} is not valid ({what}), so the default retry settings apply (a 60 s pause, 10 attempts); "
        "fix the file, or save the retry settings again to replace it."
    ]


def test_check_reports_unknown_keys_and_numbers_below_one_with_lines(tmp_path: Path) -> None:
    path = write_retry(tmp_path, "# retry settings\nretryIntervalSeconds: 0\nmaxAttemps: 3\n")
    assert [str(problem) for problem in check_retry_file(path)] == [
        f"{path}:2: retryIntervalSeconds: must be a whole number above zero, got 0",
        f"{path}:3: maxAttemps: unknown key: did you mean maxAttempts? the valid keys are "
        "retryIntervalSeconds, maxAttempts",
    ]


def test_a_folder_in_place_of_the_file_is_reported(tmp_path: Path) -> None:
    path = tmp_path / ".miniroom" / "retry.yml"
    path.mkdir(parents=True)
    assert [str(problem) for problem in check_retry_file(path)] == [
        f"{path}: is a folder: a settings file must be a regular file"
    ]
    assert load_retry_policy(tmp_path)[0] == RetryPolicy()
