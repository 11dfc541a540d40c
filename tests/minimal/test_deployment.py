"""Where shells call miniroom (the primary URL, the isolated gateway, the API itself), and what a deployment
must have for `miniroom-agent`: table tests of the pure rules."""

from __future__ import annotations

import pytest

from miniroom.minimal.deployment import (
    Deployment,
    DeploymentError,
    cli_url,
    deployment_problems,
    gateway_port,
    reachable_url,
)

API = "http://127.0.0.1:8765"
GATEWAY = {
    "MINIROOM_SCRIPT_GATEWAY_ISOLATED": "true",
    "MINIROOM_SCRIPT_GATEWAY_PORT": "8766",
    "MINIROOM_SCRIPT_GATEWAY_URL": "http://miniroom:8766/api/script-gateway",
}


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, API),
        (
            {"MINIROOM_AGENT_CLI_PRIMARY_URL": "https://miniroom.internal:9000"},
            "https://miniroom.internal:9000",
        ),
        ({"MINIROOM_AGENT_CLI_PRIMARY_URL": "http://10.0.0.5:8765/"}, "http://10.0.0.5:8765"),
        (GATEWAY, "http://miniroom:8766"),
        (
            {**GATEWAY, "MINIROOM_AGENT_CLI_PRIMARY_URL": "http://first:1"},
            "http://first:1",
        ),  # the primary wins
        ({**GATEWAY, "MINIROOM_SCRIPT_GATEWAY_ISOLATED": "false"}, API),  # not isolated: the API itself
        ({**GATEWAY, "MINIROOM_SCRIPT_GATEWAY_PORT": ""}, API),
    ],
)
def test_shells_call_the_primary_url_else_the_gateway_else_the_api(
    env: dict[str, str], expected: str
) -> None:
    assert cli_url(env, API) == expected


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MINIROOM_AGENT_CLI_PRIMARY_URL": "miniroom:8765"}, "is not an http(s)://host:port address"),
        ({"MINIROOM_AGENT_CLI_PRIMARY_URL": "http://m:8765/api"}, "it must be a plain origin, with no path"),
        ({"MINIROOM_AGENT_CLI_PRIMARY_URL": "http://m:99999"}, "a port that is not a number from 1 to 65535"),
        (
            {**GATEWAY, "MINIROOM_SCRIPT_GATEWAY_URL": "http://m:8766/"},
            "its path must be /api/script-gateway",
        ),
        ({**GATEWAY, "MINIROOM_SCRIPT_GATEWAY_URL": ""}, "MINIROOM_SCRIPT_GATEWAY_URL is not"),
        ({**GATEWAY, "MINIROOM_SCRIPT_GATEWAY_PORT": "http"}, "must be a port number from 1 to 65535"),
    ],
)
def test_a_wrong_address_setting_names_the_variable_and_the_fix(env: dict[str, str], message: str) -> None:
    with pytest.raises(DeploymentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        cli_url(env, API)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8765"),
        ("0.0.0.0", "http://127.0.0.1:8765"),
        ("::", "http://[::1]:8765"),
        ("::1", "http://[::1]:8765"),
        ("10.1.2.3", "http://10.1.2.3:8765"),
        ("localhost", "http://localhost:8765"),
    ],
)
def test_the_apis_own_address_as_a_local_shell_calls_it(host: str, url: str) -> None:
    assert reachable_url(host, 8765) == url


LOCAL = Deployment(API)
EXPOSED = Deployment(API, exposed=True)


@pytest.mark.parametrize(
    ("env", "deployment", "problems"),
    [
        ({}, LOCAL, []),
        ({}, Deployment(None), ["miniroom serve runs without its API (--no-api): start it without --no-api"]),
        ({"MINIROOM_API_KEY": "s3cret"}, EXPOSED, []),
        ({"MINIROOM_API_TOKEN": "s3cret"}, EXPOSED, []),
        (
            {},
            EXPOSED,
            [
                "the API can be reached from other machines without a key: set MINIROOM_API_KEY to a secret "
                "(and do not pass --insecure)"
            ],
        ),
        (
            {"MINIROOM_API_KEY": ""},
            EXPOSED,
            ["MINIROOM_API_KEY is set but empty, which keeps the API open to everyone: set it to a secret"],
        ),
        (
            {"MINIROOM_API_KEY": "k"},
            Deployment(API, exposed=True, open_access=True),
            [
                "the API can be reached from other machines without a key: set MINIROOM_API_KEY to a secret "
                "(and do not pass --insecure)"
            ],
        ),
        (
            {"MINIROOM_AGENT_CLI_PRIMARY_URL": "http://m:1", "OPENAI_COMPAT_ALLOW_UNAUTHENTICATED": "true"},
            LOCAL,
            [
                "the API can be reached from other machines without a key: set MINIROOM_API_KEY to a secret "
                "(and do not pass --insecure)",
                "OPENAI_COMPAT_ALLOW_UNAUTHENTICATED is set: unset it",
            ],
        ),
        (
            {**GATEWAY, "MINIROOM_SCRIPT_GATEWAY_URL": "x", "MINIROOM_API_KEY": "k"},
            LOCAL,
            ["MINIROOM_SCRIPT_GATEWAY_URL='x' is not an http(s)://host:port address: write it as one"],
        ),
    ],
)
def test_every_missing_requirement_is_listed_with_its_fix(
    env: dict[str, str], deployment: Deployment, problems: list[str]
) -> None:
    assert deployment_problems(env, deployment) == problems


def test_the_gateway_listens_only_when_isolated_with_a_port() -> None:
    assert gateway_port(GATEWAY) == 8766
    assert gateway_port({**GATEWAY, "MINIROOM_SCRIPT_GATEWAY_ISOLATED": "0"}) is None
    assert gateway_port({}) is None
