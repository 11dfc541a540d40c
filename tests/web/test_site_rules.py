"""The site rules as pure functions: which Host names are ours, which writes come from our own pages."""

from __future__ import annotations

import pytest

from miniroom.server.site import (
    DEFAULT_HOSTS,
    content_type_refusal,
    host_names,
    host_refusal,
    origin_refusal,
)

OURS = host_names([*DEFAULT_HOSTS, "[::1]", "Box.LAN."])


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "127.0.0.1:8765", "localhost:1", "LOCALHOST.:8765", "[::1]:8765", "box.lan", "box.lan:80"],
)
def test_our_host_names_with_any_port(host: str) -> None:
    assert host_refusal(host, OURS) is None


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "127.0.0.2",
        "localhost.evil:8765",
        "[::2]",
        "[::1",
        "box.lan:99999",
        "a@box.lan",
        "x/y",
    ],
)
def test_other_host_names(host: str) -> None:
    refusal = host_refusal(host, OURS)
    assert refusal is not None
    assert (refusal.status, refusal.errcode) == (403, "M_FORBIDDEN")


def test_the_suggested_address_keeps_the_port() -> None:
    refusal = host_refusal("evil.example:8765", host_names(DEFAULT_HOSTS))
    assert refusal is not None
    assert "open http://127.0.0.1:8765/ instead" in refusal.message


@pytest.mark.parametrize(
    ("origin", "referer", "refused"),
    [
        ("http://127.0.0.1:8765", None, False),
        (None, "http://127.0.0.1:8765/?room=lobby", False),
        (None, None, False),  # not a web page: curl, scripts
        ("http://127.0.0.1", None, True),  # another port is another origin
        ("https://127.0.0.1:8765", None, True),
        ("http://localhost:8765", None, True),
        ("null", None, True),
        ("http://user@127.0.0.1:8765", None, True),
        ("http://evil.example", "http://127.0.0.1:8765/", True),  # the Origin decides
        (None, "http://evil.example/", True),
        ("http://[::1", None, True),
    ],
)
def test_writes_come_from_our_own_origin(origin: str | None, referer: str | None, refused: bool) -> None:
    refusal = origin_refusal("POST", origin, referer, "http", "127.0.0.1:8765")
    assert (refusal is not None) is refused
    assert origin_refusal("GET", origin, referer, "http", "127.0.0.1:8765") is None


@pytest.mark.parametrize(
    ("method", "content_type", "refused"),
    [
        ("POST", "application/json", False),
        ("PUT", "Application/JSON; charset=utf-8", False),
        ("POST", "text/plain", True),
        ("PATCH", None, True),
        ("POST", "application/json-patch+json", True),
        ("GET", None, False),
        ("DELETE", None, False),  # no body to declare
    ],
)
def test_writes_are_declared_json(method: str, content_type: str | None, refused: bool) -> None:
    assert (content_type_refusal(method, content_type) is not None) is refused
