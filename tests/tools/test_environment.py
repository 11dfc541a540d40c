"""The environment every tool's child process gets: miniroom's secrets never, provider keys on request."""

from __future__ import annotations

import logging

import pytest

from miniroom.llm.providers import TEMPLATES
from miniroom.server.auth import TOKEN_VARIABLE
from miniroom.tools.environment import PROVIDER_KEY_VARIABLES, is_miniroom_secret, tool_environment
from miniroom.transports.matrix.accounts import SHARED_PASSWORD_VARIABLE, password_variable

ORDINARY = {"HOME": "/home/me", "PATH": "/usr/bin", "GITHUB_TOKEN": "gh-for-the-user's-own-tools"}


def test_the_secret_names_are_the_ones_miniroom_reads() -> None:
    for name in (
        TOKEN_VARIABLE,
        SHARED_PASSWORD_VARIABLE,
        password_variable("helper"),
        password_variable("a-b"),
    ):
        assert is_miniroom_secret(name), name
    assert {template.key_variable for template in TEMPLATES.values()} <= set(PROVIDER_KEY_VARIABLES)
    assert {"MINI_API_KEY", "TYPESAFE_API_KEY"} <= set(PROVIDER_KEY_VARIABLES)


def test_secrets_and_provider_keys_are_withheld_and_the_rest_passes() -> None:
    secrets = {TOKEN_VARIABLE: "t", SHARED_PASSWORD_VARIABLE: "p", password_variable("helper"): "q"}
    keys = dict.fromkeys(PROVIDER_KEY_VARIABLES, "sk-secret")
    assert tool_environment({**ORDINARY, **secrets, **keys}) == ORDINARY


def test_mini_tool_keys_passes_the_provider_keys_it_names() -> None:
    env = {
        **ORDINARY,
        "OPENAI_API_KEY": "sk-o",
        "ANTHROPIC_API_KEY": "sk-a",
        "MINI_TOOL_KEYS": " OPENAI_API_KEY ,",
    }
    assert tool_environment(env) == {
        **ORDINARY,
        "OPENAI_API_KEY": "sk-o",
        "MINI_TOOL_KEYS": " OPENAI_API_KEY ,",
    }


def test_mini_tool_keys_cannot_pass_a_miniroom_secret_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    env = {"MINIROOM_MATRIX_PASSWORD_BOT": "p", "MINI_TOOL_KEYS": "MINIROOM_MATRIX_PASSWORD_BOT"}
    with caplog.at_level(logging.WARNING):
        assert "MINIROOM_MATRIX_PASSWORD_BOT" not in tool_environment(env)
        assert "MINIROOM_MATRIX_PASSWORD_BOT" not in tool_environment(env)
    assert caplog.messages == [
        "MINI_TOOL_KEYS names MINIROOM_MATRIX_PASSWORD_BOT, one of miniroom's own secrets, which never "
        "reach a tool's process; remove it from MINI_TOOL_KEYS."
    ]
