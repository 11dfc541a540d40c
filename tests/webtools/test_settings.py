"""Settings at call time: `$VAR` from the model's variables, then the environment; defaults; secrets."""

from __future__ import annotations

import logging

import pytest

from miniroom.web.catalogue import ServiceEntry
from miniroom.web.kinds import ServiceKind
from miniroom.web.service_types import FIREFOX_USER_AGENT, find_type
from miniroom.web.settings import SettingsError, redact, resolve_settings


def entry(type_name: str, kind: ServiceKind = ServiceKind.SEARCH, **settings: str) -> ServiceEntry:
    service_type = find_type(kind, type_name)
    assert service_type is not None
    return ServiceEntry("svc", service_type, settings=settings)


def test_the_model_variables_come_first_then_the_environment() -> None:
    resolved = resolve_settings(
        entry("Brave", ApiKey="$KEY", TimeoutSec="${WAIT:-7}"),
        {"KEY": "from-model"},
        {"KEY": "from-env", "HOME": "/root"},
    )
    assert dict(resolved.values) == {"ApiKey": "from-model", "TimeoutSec": "7"}
    assert (
        resolve_settings(entry("Brave", ApiKey="$KEY"), {}, {"KEY": "from-env"}).values["ApiKey"]
        == "from-env"
    )


def test_the_defaults_are_those_of_the_tables() -> None:
    direct = resolve_settings(entry("Direct", ServiceKind.FETCH), {}, {})
    assert dict(direct.values) == {
        "UserAgent": FIREFOX_USER_AGENT,
        "TimeoutSec": "30",
        "AllowPrivateNetwork": "false",
    }
    remote = resolve_settings(entry("RemoteBrowser", ServiceKind.FETCH, ServiceUrl="http://b:1/mcp"), {}, {})
    assert dict(remote.values) == {
        "ServiceUrl": "http://b:1/mcp",
        "Protocol": "PlaywrightMcp",
        "WaitMs": "3000",
        "TimeoutSec": "60",
        "AllowPrivateNetwork": "false",
    }
    anysite = resolve_settings(entry("Anysite", ApiKey="k"), {}, {})
    assert (anysite.values["Engine"], anysite.values["TimeoutSec"]) == ("bing", "120")
    jsonseo = resolve_settings(entry("JsonSeo", ApiKey="k", Engine="GOOGLE"), {}, {})
    assert jsonseo.values["Engine"] == "google"


def test_an_unset_variable_keeps_its_text_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "miniroom.web.settings")
    service = entry("Serper", ApiKey="$NOT_SET_ANYWHERE_1")
    for _ in range(3):
        assert resolve_settings(service, {}, {}).values["ApiKey"] == "$NOT_SET_ANYWHERE_1"
    assert [record.getMessage() for record in caplog.records] == [
        "search.yml: service 'svc', setting ApiKey: $NOT_SET_ANYWHERE_1 is not set in the model's variables "
        "nor in the environment, and has no default, so it stays as written: set NOT_SET_ANYWHERE_1, or "
        "write ${NOT_SET_ANYWHERE_1:-default}"
    ]


def test_secrets_are_the_secret_settings_and_every_value_filled_from_a_variable() -> None:
    resolved = resolve_settings(
        entry("SearXNG", BaseUrl="https://search.example/?token=$TOKEN"), {}, {"TOKEN": "tok-123456"}
    )
    assert resolved.secrets == {"tok-123456"}
    keyed = resolve_settings(entry("Exa", ApiKey="literal-key-9"), {}, {})
    assert keyed.secrets == {"literal-key-9"}
    assert keyed.redact("401: bad key literal-key-9") == "401: bad key ***"
    assert redact("a-b-secret and a-b", {"a-b", "a-b-secret"}) == "*** and ***"


def test_an_expanded_value_that_does_not_fit_is_named_as_written_never_as_expanded() -> None:
    service = entry("Direct", ServiceKind.FETCH, TimeoutSec="$WAIT")
    with pytest.raises(SettingsError) as error:
        resolve_settings(service, {"WAIT": "forever-and-secret"}, {})
    assert str(error.value) == "setting TimeoutSec must be a number above zero (written as '$WAIT')"
