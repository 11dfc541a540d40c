"""Text that YAML reads as something else (`Off` is false, `1.10` a number): every settings file says to
quote it, with the value as it was written when the file still shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.agent.config_yaml_check import load_config
from miniroom.config.config_yaml import ConfigError
from miniroom.config.problems import Problem
from miniroom.hooks.config import check_hooks_file
from miniroom.mcp.config import check_mcp_file
from miniroom.web.catalogue import read_catalogue
from miniroom.web.kinds import ServiceKind
from tests.agent_runs import write_settings


def details(problems: list[Problem]) -> list[str]:
    return [problem.detail() for problem in problems]


def test_a_service_name_yaml_reads_as_false_says_to_quote_it(tmp_path: Path) -> None:
    path = write_settings(tmp_path, "fetch.yml", "services:\n  - type: Direct\n    name: Off\n")
    assert details(read_catalogue(path, ServiceKind.FETCH).problems) == [
        'line 3: services[0].name: must be text, got false — write "Off" in quotes; this service is not used'
    ]


def test_mcp_values_that_are_not_text_say_how_they_were_written(tmp_path: Path) -> None:
    text = "servers:\n  a:\n    command: x\n    env: {DEBUG: yes, SINCE: 2024-01-01}\n    args: [No, 1.10]\n"
    assert details(check_mcp_file(write_settings(tmp_path, "mcp.yml", text))) == [
        'line 5: servers.a.args[0]: must be text, got false — write "No" in quotes',
        'line 5: servers.a.args[1]: must be text, got 1.1 — write "1.10" in quotes',
        'line 4: servers.a.env.DEBUG: must be text, got true — write "yes" in quotes',
        'line 4: servers.a.env.SINCE: must be text, got date — write "2024-01-01" in quotes',
    ]


def test_config_yaml_and_hooks_yml_say_it_too(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("rooms:\n  lobby: {display_name: Off}\n")
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert [problem.detail() for problem in raised.value.problems] == [
        'line 2: rooms.lobby.display_name: must be text (got false) — write "Off" in quotes'
    ]
    hooks = write_settings(tmp_path, "hooks.yml", "deny:\n  - yes\n")
    assert details(check_hooks_file(hooks)) == [
        'line 2: deny[0]: must be text, got true — write "yes" in quotes'
    ]


def test_without_the_written_value_the_hint_does_not_guess_it(tmp_path: Path) -> None:
    # A merged mapping's values keep no line of their own, nor their spelling.
    text = "servers:\n  a:\n    command: x\n    env:\n      <<: {DEBUG: on}\n"
    assert details(check_mcp_file(write_settings(tmp_path, "mcp.yml", text))) == [
        "line 4: servers.a.env.DEBUG: must be text, got true — quote the value"
    ]
    from miniroom.config.problems import quote_hint

    assert quote_hint(False, None) == " — quote the value"
    assert quote_hint("Off", "Off") == quote_hint(None, None) == ""


def test_numbers_where_numbers_belong_get_no_hint(tmp_path: Path) -> None:
    text = "servers:\n  a: {command: x, timeout: 0}\n"
    assert details(check_mcp_file(write_settings(tmp_path, "mcp.yml", text))) == [
        "line 2: servers.a.timeout: must be a whole number above zero, got 0"
    ]
