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


# What a test needs, said by where it lives or by an explicit mark; `make test-fast` leaves these kinds out.
BY_FOLDER = {"matrix": "matrix", "cli": "e2e"}
# Fixtures that need a kind: a test using one must say so (`pytestmark = pytest.mark.<kind>`).
NEEDS_KIND = {"browser": "browser", "chromium_path": "browser", "workspace": "e2e"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of tests/matrix `matrix` and those of tests/cli `e2e`."""
    for item in items:
        folder = item.path.relative_to(TESTS).parts[0] if item.path.is_relative_to(TESTS) else ""
        if folder in BY_FOLDER:
            item.add_marker(BY_FOLDER[folder])


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test whose fixtures need Chromium or start `miniroom` fails at once unless it is marked so: else
    `make test-fast` would run it."""
    marks = {mark.name for mark in item.iter_markers()}
    needed = {NEEDS_KIND[name] for name in NEEDS_KIND.keys() & set(getattr(item, "fixturenames", ()))}
    missing = sorted(needed - marks)
    if missing:
        marking = ", ".join(f"pytest.mark.{kind}" for kind in missing)
        pytest.fail(
            f"mark this test {' and '.join(missing)}: `pytestmark = [{marking}]` in its module", False
        )


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
