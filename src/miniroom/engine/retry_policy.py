"""How long to pause and how often to retry a failed provider request: `.miniroom/retry.yml` (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.config.paths import RETRY_FILE
from miniroom.llm import ErrorKind

if TYPE_CHECKING:
    from miniroom.config.problems import Problem

# A provider asking for a longer wait is out of service for now: the turn fails and says so instead.
MAX_RETRY_AFTER_SECONDS = 900.0
# A refused connection means nothing listens at the address: most often a mistyped port or a local server
# not started. A few quick attempts cover a server that is restarting; minutes of them only delay the error.
# An outage of a provider shows otherwise (5xx, overloaded, timeouts) and keeps the full policy.
REFUSED_MAX_ATTEMPTS = 3
REFUSED_PAUSE_SECONDS = 5.0


@dataclass(frozen=True)
class RetryPolicy:
    """A fixed pause between attempts; `max_attempts` counts the first request too."""

    interval_seconds: float = 60
    max_attempts: int = 10

    def attempts_for(self, kind: ErrorKind) -> int:
        """How many attempts a failure of this kind gets in all: fewer for a refused connection."""
        if kind is ErrorKind.REFUSED:
            return min(self.max_attempts, REFUSED_MAX_ATTEMPTS)
        return self.max_attempts

    def wait_before(self, retry_after: float | None, kind: ErrorKind | None = None) -> float:
        """The pause before the next attempt: the provider's retry-after when it is longer than ours, since
        retrying earlier would only fail again; a refused connection waits at most a few seconds."""
        pause = self.interval_seconds
        if kind is ErrorKind.REFUSED:
            pause = min(pause, REFUSED_PAUSE_SECONDS)
        return max(pause, retry_after or 0.0)


def _read_retry_file(path: Path) -> tuple[RetryPolicy, list[Problem]]:
    """The policy the file sets, or the defaults along with everything wrong in it."""
    # The YAML reader and the pydantic model are imported only for a project that has a retry.yml.
    from pydantic import ValidationError

    from miniroom.config.settings_file import SettingsFileError
    from miniroom.config.settings_model import validation_problems
    from miniroom.config.yaml_source import load_yaml
    from miniroom.engine.retry_file import RetryFile

    try:
        source = load_yaml(path)
    except SettingsFileError as error:
        return RetryPolicy(), [error.problem]
    try:
        parsed = RetryFile.model_validate({} if source.data is None else source.data)
    except ValidationError as error:
        return RetryPolicy(), [*source.problems, *validation_problems(source, error, RetryFile)]
    if source.problems:
        return RetryPolicy(), list(source.problems)
    defaults = RetryPolicy()
    interval = parsed.retry_interval_seconds or defaults.interval_seconds
    return RetryPolicy(float(interval), parsed.max_attempts or defaults.max_attempts), []


def check_retry_file(path: Path) -> list[Problem]:
    """Everything wrong in a retry.yml, with line numbers (for `config check`)."""
    return _read_retry_file(path)[1]


def load_retry_policy(project_dir: Path) -> tuple[RetryPolicy, list[str]]:
    """The project's retry policy and warnings; a broken file never breaks a chat: the defaults apply."""
    path = project_dir / RETRY_FILE
    if not path.exists():
        return RetryPolicy(), []
    policy, problems = _read_retry_file(path)
    if not problems:
        return policy, []
    defaults = RetryPolicy()
    details = "; ".join(problem.detail() for problem in problems)
    warning = (
        f"{path} is not valid ({details}), so the default retry settings apply "
        f"(a {defaults.interval_seconds:g} s pause, {defaults.max_attempts} attempts); "
        "fix the file, or save the retry settings again to replace it."
    )
    return defaults, [warning]
