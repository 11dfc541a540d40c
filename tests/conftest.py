"""Fixtures shared by the whole suite: the scripted provider and an isolated environment for `miniroom`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import ScriptedProvider
from miniroom.tools.reaper import process_reaper

MINIROOM = str(Path(sys.executable).with_name("miniroom"))
TESTS = Path(__file__).resolve().parent
KEY_VARIABLES = (
    "MINI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "MODEL",
    "MINI_PROVIDER",
    "MINI_BASE_URL",
    "MINI_API",
    "MINI_AUTH",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it needs, so `make test-fast` can leave out the slow kinds."""
    for item in items:
        for marker in kinds(item):
            item.add_marker(marker)


def kinds(item: pytest.Item) -> list[str]:
    """`matrix` in tests/matrix, `browser` with a Chromium page, `e2e` when it starts `miniroom` processes:
    every test in tests/cli, and any module that holds `MINIROOM` or `ServeProcess` (the usual ways to start
    one; a module that starts it otherwise says `pytestmark = pytest.mark.e2e`)."""
    found = []
    if item.path.is_relative_to(TESTS / "matrix"):
        found.append("matrix")
    if "browser" in getattr(item, "fixturenames", ()):
        found.append("browser")
    module = getattr(item, "module", None)
    starts_miniroom = any(hasattr(module, name) for name in ("MINIROOM", "ServeProcess"))
    if item.path.is_relative_to(TESTS / "cli") or starts_miniroom:
        found.append("e2e")
    return found


@pytest.fixture(autouse=True, scope="session")
def _reaper_ends_with_the_tests() -> Iterator[None]:
    """The bash tests' reaper process ends with the run, as it would with miniroom, not at exit unwaited."""
    yield
    process_reaper().close()


@pytest.fixture
def provider() -> Iterator[ScriptedProvider]:
    with ScriptedProvider() as server:
        yield server


@dataclass
class Workspace:
    """A project folder plus the environment a user would set to point miniroom at the scripted provider."""

    project: Path
    agent_dir: Path
    env: dict[str, str]

    def run(
        self, *args: str, stdin: str | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [MINIROOM, *args],
            cwd=self.project,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def clean_env(agent_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    env["MINI_AGENT_DIR"] = str(agent_dir)
    env["NO_PROXY"] = "127.0.0.1,localhost"
    if env.get("PYTHONPATH"):  # the agents' shells run this checkout's miniroom-agent, as the tests' miniroom
        env["MINI_TOOL_ENV"] = "PYTHONPATH"
    return env


@pytest.fixture(params=["anthropic-messages", "openai-completions"])
def workspace(request: pytest.FixtureRequest, tmp_path: Path, provider: ScriptedProvider) -> Workspace:
    """A workspace for each wire protocol, talking to the scripted provider."""
    project = tmp_path / "project"
    project.mkdir()
    env = clean_env(tmp_path / "mini")
    api = str(request.param)
    env.update(
        {
            "MODEL": "scripted/test-model",
            "MINI_API": api,
            "MINI_BASE_URL": provider.url if api == "anthropic-messages" else provider.openai_base_url,
            "MINI_API_KEY": "sk-test-secret-123",
        }
    )
    return Workspace(project, tmp_path / "mini", env)
