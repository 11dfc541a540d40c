"""The environment of every process miniroom starts: an allowlist plus what the user names, never a key by
accident, proxies without their passwords, and miniroom non-dumpable before any child runs."""

from __future__ import annotations

import ctypes
import logging

import pytest

from miniroom.config.secret_variables import API_TOKEN_VARIABLE, MATRIX_PASSWORD_VARIABLE
from miniroom.tools.environment import is_miniroom_secret, tool_environment, without_credentials
from miniroom.transports.matrix.accounts import password_variable

ORDINARY = {
    "HOME": "/home/me",
    "PATH": "/usr/bin",
    "USER": "me",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TMPDIR": "/tmp/me",
    "SSL_CERT_FILE": "/etc/ssl/corp.pem",
    "XDG_CACHE_HOME": "/home/me/.cache",
}
# Keys whatever their names: a provider's, one models.json names, a proxy password, an OpenAI-like name.
KEYS = {
    "ANTHROPIC_API_KEY": "sk-a",
    "MY_VENDOR_KEY": "sk-v",
    "CORP_PROXY_PASS": "hunter2",
    "OPENAI_KEY": "sk-o",
    "GITHUB_TOKEN": "ghp",
    "LC_MY_TOKEN": "smuggled",  # only the locale's own LC_ names pass
}
PR_GET_DUMPABLE = 3


def test_the_secret_names_are_the_ones_miniroom_reads() -> None:
    for name in (
        API_TOKEN_VARIABLE,
        MATRIX_PASSWORD_VARIABLE,
        password_variable("helper"),
        password_variable("a-b"),
    ):
        assert is_miniroom_secret(name), name


def test_only_the_allowlist_passes_whatever_else_is_set() -> None:
    secrets = {API_TOKEN_VARIABLE: "t", MATRIX_PASSWORD_VARIABLE: "p", password_variable("helper"): "q"}
    assert tool_environment({**ORDINARY, **secrets, **KEYS, "PWD": "/elsewhere"}) == ORDINARY


def test_mini_tool_env_and_mini_tool_keys_pass_the_variables_they_name() -> None:
    env = {
        **ORDINARY,
        **KEYS,
        "SSH_AUTH_SOCK": "/run/agent.sock",
        "MINI_TOOL_KEYS": " OPENAI_KEY ,",
        "MINI_TOOL_ENV": "SSH_AUTH_SOCK,GITHUB_TOKEN,UNSET_NAME",
    }
    assert tool_environment(env) == {
        **ORDINARY,
        "OPENAI_KEY": "sk-o",
        "SSH_AUTH_SOCK": "/run/agent.sock",
        "GITHUB_TOKEN": "ghp",
    }


def test_naming_a_miniroom_secret_passes_nothing_and_says_so_once(caplog: pytest.LogCaptureFixture) -> None:
    env = {
        "MINIROOM_MATRIX_PASSWORD_BOT": "p",
        "MINIROOM_AGENT_TOKEN": "grant",
        "MINI_TOOL_KEYS": "MINIROOM_MATRIX_PASSWORD_BOT",
        "MINI_TOOL_ENV": "MINIROOM_AGENT_TOKEN",
    }
    with caplog.at_level(logging.WARNING):
        assert tool_environment(env) == {}
        assert tool_environment(env) == {}
    assert caplog.messages == [
        "MINI_TOOL_ENV names MINIROOM_AGENT_TOKEN, one of miniroom's own secrets, which never reach a tool's "
        "process; remove it from MINI_TOOL_ENV.",
        "MINI_TOOL_KEYS names MINIROOM_MATRIX_PASSWORD_BOT, one of miniroom's own secrets, which never "
        "reach a tool's process; remove it from MINI_TOOL_KEYS.",
    ]


def test_proxies_pass_without_their_credentials_unless_named(caplog: pytest.LogCaptureFixture) -> None:
    env = {
        "https_proxy": "http://me:hunter2@proxy.corp:3128/",
        "HTTP_PROXY": "http://proxy.corp:3128",
        "NO_PROXY": "localhost,.corp",
    }
    with caplog.at_level(logging.WARNING):
        assert tool_environment(env) == {
            "https_proxy": "http://proxy.corp:3128/",
            "HTTP_PROXY": "http://proxy.corp:3128",
            "NO_PROXY": "localhost,.corp",
        }
    assert caplog.messages == [
        "https_proxy holds a user name or password: the processes miniroom starts get the proxy without "
        "them; name https_proxy in MINI_TOOL_ENV to pass it whole."
    ]
    assert tool_environment(env | {"MINI_TOOL_ENV": "https_proxy"})["https_proxy"] == env["https_proxy"]


@pytest.mark.parametrize(
    ("proxy", "plain"),
    [
        ("http://u:p@host:1", "http://host:1"),
        ("socks5://u@host:1/x@y", "socks5://host:1/x@y"),
        ("u:p@host:1", "host:1"),
        ("http://a:b@c@host", "http://host"),
        ("http://host:1", "http://host:1"),
        ("", ""),
    ],
)
def test_without_credentials_keeps_the_scheme_host_and_path(proxy: str, plain: str) -> None:
    assert without_credentials(proxy) == plain


def test_building_a_child_environment_makes_miniroom_non_dumpable() -> None:
    tool_environment({})
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0
