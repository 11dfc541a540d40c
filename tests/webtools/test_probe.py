"""`web test` when its test page cannot be reached: the machine may be offline; another page may be given."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from miniroom.web import probe
from miniroom.web.kinds import ServiceKind
from tests.webtools.conftest import write_catalogue
from tests.webtools.test_cli import closed_port_url


def try_fetch(tmp_path: Path, target: str | None) -> probe.ServiceTestResult:
    # The closed port is on 127.0.0.1, loopback, which the service reaches only with AllowPrivateNetwork.
    service = "  - name: Direct HTTP\n    type: Direct\n    settings: {AllowPrivateNetwork: true}\n"
    write_catalogue(tmp_path, "fetch.yml", "services:\n" + service)
    return asyncio.run(
        probe.run_service_test(
            tmp_path, ServiceKind.FETCH, "Direct HTTP", target=target, environ={}, data_dir=tmp_path / "data"
        )
    )


@pytest.mark.parametrize("failure", ["connection refused", "no such host"])
def test_an_unreachable_test_page_says_how_to_give_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    page = closed_port_url() if failure == "connection refused" else "http://no-such-host.invalid/"
    monkeypatch.setattr(probe, "TEST_PAGE", page)
    result = try_fetch(tmp_path, None)
    assert not result.ok
    reason, hint = result.explanation.split(" — ", 1)
    assert reason.startswith("ConnectError: ")
    assert hint == (
        f"the test page {page} could not be reached (is this machine offline?): give a page it can reach "
        "after the name, e.g. miniroom web test fetch 'Direct HTTP' URL"
    )
    assert "\n" not in result.explanation


def test_a_page_the_user_gave_keeps_the_plain_reason(tmp_path: Path) -> None:
    result = try_fetch(tmp_path, closed_port_url())
    assert not result.ok
    assert result.explanation.startswith("ConnectError: ")
    assert "test page" not in result.explanation
