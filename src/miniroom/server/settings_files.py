"""A project's settings files as the web settings read and write them: each through the validator its
loader and `miniroom config check` use, against the md5 of the version an edit started from, atomically.

A write goes to a temporary file beside the real one, is validated there (the "validation build"), and
replaces the real file in one rename only when it has no errors; a file changed since the edit began is
left as it is and the write refused, so nobody's edits are silently overwritten.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from miniroom.agent import VALIDATORS, check_config_file
from miniroom.config.paths import DEFAULT_CONFIG
from miniroom.config.problems import Problem, Validator
from miniroom.config.settings_file import SettingsFileError, read_settings_text

MISSING_MD5 = ""  # the version of a file that does not exist yet
UNREADABLE_MD5 = "unreadable"  # a file that cannot be read as text (too large, not a regular file, ...)


@dataclass(frozen=True)
class SettingsFile:
    """One settings file: the name the API knows it by, where it is, and its validator."""

    name: str
    path: Path
    validate: Validator
    location: str  # where it is, as people see it: `.miniroom/retry.yml`


@dataclass(frozen=True)
class Snapshot:
    """A settings file as read: its text (empty when missing or unreadable), its md5 and its problems."""

    file: SettingsFile
    exists: bool
    text: str
    md5: str
    problems: tuple[Problem, ...] = ()

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.severity == "error"]


class UnknownSettingsFile(LookupError):
    """No settings file of that name."""


class Conflict(Exception):
    """The file changed since the version a write was based on; `current` is its md5 now."""

    def __init__(self, location: str, current: str) -> None:
        super().__init__(
            f"{location} changed outside this page since you opened it, so your edits were not saved: "
            "reload it to see the new version, then make your change again"
        )
        self.current = current


class Refused(Exception):
    """The new text has errors; `problems` names each (file, line, key, message)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = tuple(problems)


def text_md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


class ProjectFiles:
    """The settings files of one project: every `.miniroom/` file the registry knows, and config.yaml."""

    def __init__(self, project_dir: Path, config_path: Path | None = None) -> None:
        self.project_dir = project_dir
        self.config_path = config_path if config_path is not None else project_dir / DEFAULT_CONFIG
        self._lock = threading.Lock()  # one write at a time: the md5 check and the rename go together

    def files(self) -> list[SettingsFile]:
        known = [
            SettingsFile(relative.name, self.project_dir / relative, validate, relative.as_posix())
            for relative, validate in VALIDATORS.items()
        ]
        config = SettingsFile(
            DEFAULT_CONFIG, self.config_path, check_config_file, self.location_of(self.config_path)
        )
        return [*known, config]

    def file(self, name: str) -> SettingsFile:
        found = next((file for file in self.files() if file.name == name), None)
        if found is None:
            names = ", ".join(file.name for file in self.files())
            raise UnknownSettingsFile(f"no settings file {name!r}; the files are {names}")
        return found

    def read(self, name: str) -> Snapshot:
        """The file as it is now, with every problem its validator finds."""
        return self._read(self.file(name))

    def write(self, name: str, text: str, based_on: str) -> Snapshot:
        """Replace the file with `text`, validated, unless it changed since version `based_on` (its md5).

        Raises Conflict or Refused; the snapshot returned has the warnings, and any new problem the change
        makes in config.yaml (a model naming a profile that is gone).
        """
        file = self.file(name)
        with self._lock:
            current = self._read(file, validate=False)
            if current.md5 != based_on:
                raise Conflict(file.location, current.md5)
            config_before = self._config_problems(file)
            candidate = self._candidate(file, text)
            try:
                problems = [_located(problem, candidate, file.path) for problem in file.validate(candidate)]
                if any(problem.severity == "error" for problem in problems):
                    raise Refused(problems)
                _keep_mode(file.path, candidate)
                os.replace(candidate, file.path)
            finally:
                candidate.unlink(missing_ok=True)
            caused = [p for p in self._config_problems(file) if str(p) not in {str(q) for q in config_before}]
        return dataclasses.replace(self._read(file, validate=False), problems=(*problems, *caused))

    def _read(self, file: SettingsFile, *, validate: bool = True) -> Snapshot:
        try:
            text = read_settings_text(file.path)
        except FileNotFoundError:
            return Snapshot(file, False, "", MISSING_MD5)
        except SettingsFileError as error:
            return Snapshot(file, True, "", UNREADABLE_MD5, (error.problem,))
        problems = tuple(file.validate(file.path)) if validate else ()
        return Snapshot(file, True, text, text_md5(text), problems)

    def _candidate(self, file: SettingsFile, text: str) -> Path:
        """`text` in a new file beside the real one, to validate before it takes the real one's place."""
        folder = file.path.parent
        folder.mkdir(parents=True, exist_ok=True)
        project = self.project_dir.resolve()
        if not folder.resolve().is_relative_to(project):
            raise Refused(
                [Problem(folder, None, "", f"leads out of the project {project} (a link?); fix it")]
            )
        candidate = folder / f".{file.path.name}.{secrets.token_hex(4)}.tmp"
        with candidate.open("x", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        return candidate

    def _config_problems(self, file: SettingsFile) -> list[Problem]:
        """config.yaml's problems, which a `.miniroom/` file can cause (a profile a model names)."""
        if file.path == self.config_path or not self.config_path.exists():
            return []
        return check_config_file(self.config_path)

    def location_of(self, path: Path | str) -> str:
        """Where `path` is, as people see it: relative to the project when it is inside."""
        try:
            return Path(path).resolve().relative_to(self.project_dir.resolve()).as_posix()
        except ValueError:
            return str(path)


def _located(problem: Problem, candidate: Path, real: Path) -> Problem:
    """A problem found in the candidate, named by the real file's path."""
    return dataclasses.replace(problem, path=real) if Path(problem.path) == candidate else problem


def _keep_mode(original: Path, candidate: Path) -> None:
    """The new file keeps the old one's permissions (a file kept private stays private)."""
    with contextlib.suppress(FileNotFoundError):
        os.chmod(candidate, os.stat(original).st_mode & 0o7777)
