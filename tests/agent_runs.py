"""What tests of `miniroom run` with project settings share: writing a settings file, a run that must
succeed, and the tool results its session holds."""

from __future__ import annotations

from pathlib import Path

from miniroom.engine import Session, latest_session_path
from miniroom.llm import ToolResultMessage
from tests.conftest import Workspace


def write_settings(project: Path, name: str, text: str) -> Path:
    """`.miniroom/<name>` in `project`, holding `text`."""
    path = project / ".miniroom" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def run_ok(workspace: Workspace, prompt: str = "go") -> str:
    """`miniroom run prompt`, which must succeed; its stderr."""
    done = workspace.run("run", prompt)
    assert done.returncode == 0, done.stderr
    return done.stderr


def tool_results(workspace: Workspace) -> list[ToolResultMessage]:
    """The tool results of the project's latest session, in order."""
    path = latest_session_path(workspace.agent_dir, workspace.project.resolve())
    assert path is not None
    return [m for m in Session.load(path).messages() if isinstance(m, ToolResultMessage)]
