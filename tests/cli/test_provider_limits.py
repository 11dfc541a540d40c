"""A provider's answer and a model's settings, end to end: `miniroom run` stops at the profile's limits and
fails at once on settings no request can be made with."""

from __future__ import annotations

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import Workspace

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)


@one_protocol
def test_an_endless_answer_ends_at_the_profiles_size_and_is_not_retried(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="on and ", endless=True))
    workspace.env["MINI_PROFILE_MAX_ANSWER_BYTES"] = "100000"
    result = workspace.run("run", "hi")
    assert result.returncode == 1
    assert "passed 100,000 bytes (maxAnswerBytes" in result.stderr
    assert "attempt 1 of" not in result.stderr
    assert len(provider.requests) == 1
    assert "Traceback" not in result.stderr
