"""The room runtime builds agents with the same check of a model's variables as `config check` and `serve`."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.agent.config_yaml_check import validate_config
from miniroom.agent.profile import ProfileError
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.agents import AgentFactory
from tests.conftest import clean_env


def test_a_bad_model_variable_is_named_as_the_models_not_the_environments(tmp_path: Path) -> None:
    config = validate_config(
        {
            "agents": {"helper": {"model": "default"}},
            "models": {
                "default": {
                    "model": "anthropic/claude-sonnet-5",
                    "variables": ["MINI_PROFILE_TOOL_CALL_TIMEOUT=abc"],
                }
            },
        }
    )
    factory = AgentFactory(config, tmp_path / "data", clean_env(tmp_path / "mini"), project_dir=tmp_path)
    with pytest.raises(ProfileError) as caught:
        factory.build("helper", Conversation("!lobby:miniroom.local"))
    assert str(caught.value) == (
        "MINI_PROFILE_TOOL_CALL_TIMEOUT in the model's variables: must be a whole number above zero, "
        'got "abc"'
    )
