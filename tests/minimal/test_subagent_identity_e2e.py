"""A minimal subagent's prompt opens with its profile's own prompt, where the profile has one, in place of
mini's identity line; it keeps the subagent sentence, its working folder and the `miniroom-agent` lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from miniroom.agent.minimal import DEFAULT_IDENTITY
from miniroom.agent.prompt import SUBAGENT_PROMPT
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import Workspace, clean_env
from tests.minimal.support import system_text

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

AUTHORED = "You review Python code for the Acme team."


@pytest.fixture
def project(tmp_path: Path, provider: ScriptedProvider) -> Workspace:
    folder = tmp_path / "project"
    (folder / ".miniroom").mkdir(parents=True)
    (folder / ".miniroom" / "miniagent.yml").write_text(
        f"profiles:\n  reviewer:\n    systemPrompt: {AUTHORED}\n  plain: {{}}\n"
    )
    env = clean_env(tmp_path / "mini")
    env.update(MODEL="scripted/test-model", MINI_API="anthropic-messages", MINI_BASE_URL=provider.url)
    env["MINI_API_KEY"] = "sk-test-secret"
    return Workspace(folder, tmp_path / "mini", env)


@pytest.mark.parametrize(("profile", "first_line"), [("reviewer", AUTHORED), ("plain", DEFAULT_IDENTITY)])
def test_a_minimal_subagent_opens_with_its_profiles_prompt(
    project: Workspace, provider: ScriptedProvider, profile: str, first_line: str
) -> None:
    task = {"description": "review", "prompt": "CHILD-M review", "minimal": True, "profile": profile}
    provider.script(Reply(tool_calls=[("agent", task)]), Reply(text="reviewed"))
    provider.script_for("CHILD-M", Reply(text="fine"))
    result = project.run("run", "delegate")
    assert result.returncode == 0, result.stderr
    [child] = [r.body for r in provider.requests if "CHILD-M" in json.dumps(r.body["messages"][0])]
    identity = system_text(child).splitlines()[0]
    assert identity == f"{first_line} {SUBAGENT_PROMPT}"
    assert "`miniroom-agent` reaches your other tools" in system_text(child)
