"""Every error a person can fix is a UserError, which the command line and the room turn each catch once."""

from __future__ import annotations

import pytest

from miniroom.agent.profile import ProfileError
from miniroom.cli.common import CommandError
from miniroom.config.config_yaml import ConfigError
from miniroom.config.errors import UserError
from miniroom.config.settings_file import SettingsFileError
from miniroom.engine import SessionError
from miniroom.llm import ModelConfigError

FIXABLE = [ConfigError, SettingsFileError, ProfileError, ModelConfigError, SessionError, CommandError]


@pytest.mark.parametrize("error", FIXABLE, ids=lambda error: error.__name__)
def test_an_error_a_person_can_fix_is_a_user_error(error: type[Exception]) -> None:
    assert issubclass(error, UserError)
