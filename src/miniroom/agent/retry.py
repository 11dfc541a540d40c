"""`.miniroom/retry.yml`: the project's retry policy, read here and handed to the engine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.config.paths import RETRY_FILE
from miniroom.engine import RetryPolicy

if TYPE_CHECKING:
    from miniroom.config.problems import Problem


def _read_retry_file(path: Path) -> tuple[RetryPolicy, list[Problem]]:
    """The policy the file sets, or the defaults along with everything wrong in it."""
    # The YAML reader and the pydantic model are imported only for a project that has a retry.yml.
    from pydantic import ValidationError

    from miniroom.agent.retry_file import RetryFile
    from miniroom.config.settings_file import SettingsFileError
    from miniroom.config.settings_model import validation_problems
    from miniroom.config.yaml_source import load_yaml

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
