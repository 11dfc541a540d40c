"""The shell sandbox's rules (`tools.sandbox`) applied to the file tools, so `write` cannot plant what a
sandboxed command cannot, and `read` or `grep` cannot show what it hides.

A path is checked once resolved (links followed), then opened beneath the working folder without following
any link (`tools.paths`): a link swapped in between makes the open fail instead of reaching a protected file.
"""

from __future__ import annotations

import os
from pathlib import Path

from miniroom.engine import ToolError
from miniroom.tools.base import BuiltinTool, P
from miniroom.tools.paths import InsidePath, display_path
from miniroom.tools.sandbox import Sandbox, is_env_file, read_only_paths

SETTINGS_WHY = "instructions and settings files are the people's to change"
GIT_WHY = "git runs what it holds later, outside the sandbox (git's objects, refs and index stay writable)"
SECRETS_WHY = ".env files hold secrets, which the agent's tools neither read nor change"
DATA_WHY = "it holds miniroom's own sessions, settings or secrets"


class Fence:
    """What one file tool call may not read or change; with no sandbox (or `off`), nothing."""

    def __init__(self, sandbox: Sandbox | None) -> None:
        self.mode = "off" if sandbox is None else sandbox.mode
        self.project = Path("/") if sandbox is None else sandbox.project.resolve()
        self._hidden = [] if sandbox is None or self.mode == "off" else sandbox.hidden_in_project()

    def hidden(self, path: Path, *, folder: bool = False) -> str | None:
        """Why the sandbox hides `path` (resolved) from its commands, or None: a `.env` file or miniroom's
        own folders (sessions, settings, the data folder) when they lie in the project."""
        if self.mode == "off":
            return None
        if not folder and is_env_file(path):
            return self._said(path, "hidden", "", SECRETS_WHY)
        for hidden in self._hidden:
            if path.is_relative_to(hidden):
                where = f" (it is in {self._shown(hidden)})" if path != hidden else ""
                return self._said(path, "hidden", where, DATA_WHY)
        return None

    def hides(self, path: Path, *, folder: bool = False) -> bool:
        return self.hidden(path, folder=folder) is not None

    def unwritable(self, path: Path) -> str | None:
        """Why the sandbox keeps `path` (resolved, existing or not) from change, or None."""
        if self.mode == "read-only":
            return (
                f"{self._shown(path)} cannot be changed: the whole project is read-only in this sandbox "
                "(profile setting sandbox: read-only); files can be read, not written."
            )
        if self.mode == "off":
            return None
        return self.hidden(path) or self._read_only(path)

    def _read_only(self, path: Path) -> str | None:
        """Why `path` lies in what a `workspace` sandbox keeps read-only, or None."""
        for protected in read_only_paths(self.project):
            target = protected.resolve()  # a protected name that is a link keeps its target read-only
            if path.is_relative_to(target):
                name = self._shown(protected)
                where = "" if path == protected else f" (it is in {name})"
                if not path.is_relative_to(protected):
                    where = f" ({name} leads to it)"
                why = GIT_WHY if protected.relative_to(self.project).parts[0] == ".git" else SETTINGS_WHY
                return self._said(path, "read-only", where, why)
        return None

    def _said(self, path: Path, kind: str, where: str, why: str) -> str:
        setting = f"profile setting sandbox: {self.mode}"
        return f"{self._shown(path)}{where} is {kind} in this sandbox ({setting}): {why}."

    def _shown(self, path: Path) -> str:
        return display_path(self.project, path)


def refuse(reason: str | None, target: InsidePath, user_path: str) -> None:
    """Raise the fence's reason as the tool's error, saying first where a link led."""
    if reason is None:
        return
    expanded = os.path.expanduser(user_path)
    lexical = Path(os.path.normpath(expanded if os.path.isabs(expanded) else target.root / expanded))
    led = f"{user_path} leads to {target.shown}, and " if lexical != target.path else ""
    raise ToolError(led + reason)


class FileTool(BuiltinTool[P]):
    """A file tool made with the agent's shell sandbox, whose rules it keeps to (None: unsandboxed)."""

    def __init__(self, sandbox: Sandbox | None = None) -> None:
        self._sandbox = sandbox

    @property
    def fence(self) -> Fence:
        return Fence(self._sandbox)
