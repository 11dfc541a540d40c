"""Every settings-file reader of miniroom, run the way miniroom runs it, each failure as located problems."""

from __future__ import annotations

import contextlib
import re
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from miniroom.agent.config_yaml_check import load_checked_config, load_config
from miniroom.agent.external import load_external
from miniroom.agent.profile import ProfileError, check_profile_file, resolve_profile
from miniroom.agent.retry import check_retry_file, load_retry_policy
from miniroom.config.config_yaml import ConfigError
from miniroom.config.problems import Problem
from miniroom.hooks.config import check_hooks_file
from miniroom.llm.models_json import load_models_json
from miniroom.llm.registry import ModelConfigError
from miniroom.mcp.config import check_mcp_file
from miniroom.web.catalogue import check_fetch_file, check_search_file
from miniroom.web.kinds import ServiceKind
from miniroom.web.project import load_catalogue

HANG_SECONDS = 20.0  # far beyond any case's real time: only a hang (or a pathological slowdown) reaches it


@dataclass(frozen=True)
class Reader:
    """Where a settings file lives in a project, and how miniroom reads it: each problem as text."""

    name: str
    relative: str
    read: Callable[[Path], list[str]]

    def place(self, project: Path) -> Path:
        path = project / self.relative
        path.parent.mkdir(parents=True, exist_ok=True)
        return path


def _problems(problems: list[Problem]) -> list[str]:
    return [str(problem) for problem in problems]


def _profile_at_run_time(path: Path) -> list[str]:
    try:
        resolve_profile(path.parent.parent, {})
    except ProfileError as error:
        return str(error).split("\n")
    return []


def _retry_at_run_time(path: Path) -> list[str]:
    return load_retry_policy(path.parent.parent)[1]


def _catalogue_at_run_time(kind: ServiceKind) -> Callable[[Path], list[str]]:
    return lambda path: load_catalogue(path.parent.parent, kind)[1]


def _external_at_run_time(path: Path) -> list[str]:
    try:
        load_external(path.parent.parent)
    except ProfileError as error:
        return [str(error)]
    return []


def _config_read_by(load: Callable[[Path], object]) -> Callable[[Path], list[str]]:
    def read(path: Path) -> list[str]:
        try:
            load(path)
        except ConfigError as error:
            return _problems(list(error.problems))
        return []

    return read


def _models_json(path: Path) -> list[str]:
    try:
        load_models_json(path)
    except ModelConfigError as error:
        return [str(error)]
    return []


READERS = [
    Reader("miniagent.yml", ".miniroom/miniagent.yml", lambda path: _problems(check_profile_file(path))),
    Reader("miniagent.yml at run time", ".miniroom/miniagent.yml", _profile_at_run_time),
    Reader("retry.yml", ".miniroom/retry.yml", lambda path: _problems(check_retry_file(path))),
    Reader("retry.yml at run time", ".miniroom/retry.yml", _retry_at_run_time),
    Reader("mcp.yml", ".miniroom/mcp.yml", lambda path: _problems(check_mcp_file(path))),
    Reader("mcp.yml at run time", ".miniroom/mcp.yml", _external_at_run_time),
    Reader("hooks.yml", ".miniroom/hooks.yml", lambda path: _problems(check_hooks_file(path))),
    Reader("hooks.yml at run time", ".miniroom/hooks.yml", _external_at_run_time),
    Reader("config.yaml", "config.yaml", _config_read_by(load_config)),
    Reader("config.yaml at serve start", "config.yaml", _config_read_by(load_checked_config)),
    Reader("fetch.yml", ".miniroom/fetch.yml", lambda path: _problems(check_fetch_file(path))),
    Reader("fetch.yml at run time", ".miniroom/fetch.yml", _catalogue_at_run_time(ServiceKind.FETCH)),
    Reader("search.yml", ".miniroom/search.yml", lambda path: _problems(check_search_file(path))),
    Reader("search.yml at run time", ".miniroom/search.yml", _catalogue_at_run_time(ServiceKind.SEARCH)),
    Reader("models.json", "mini/models.json", _models_json),
]
YAML_READERS = [reader for reader in READERS if not reader.relative.endswith(".json")]


def located(message: str, path: Path) -> bool:
    """Whether a message names the file and a line (`file:12:`) or a key (`file: key:`, `  - key: ...`)."""
    file = re.escape(str(path))
    where = rf"(line \d+|{_KEY}): "
    patterns = [
        rf"^{file}:\d+: ",
        rf"^{file}: {_KEY}: ",
        rf"^{file} is not valid \({where}",
        r"^  - \S.*?: ",  # models.json: one key path a line, which may hold spaces and colons in quotes
    ]
    return str(path) in message and any(re.search(pattern, message, re.M) for pattern in patterns)


_KEY = r"[^\s:]+"


@contextlib.contextmanager
def no_hang(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Fail instead of hanging when the block runs past `seconds` (a blocking open or read is interrupted)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still running after {seconds:g} s: a hang")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
