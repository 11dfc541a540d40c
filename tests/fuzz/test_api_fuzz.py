"""Fuzzing the HTTP API over real HTTP: whatever a client sends, the answer is below 500, and every refusal
is a JSON error (`errcode`, `error`) saying what is wrong."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from miniroom.server import create_app
from miniroom.transports.embedded import RoomStore
from tests.web.conftest import serve_in_thread

FUZZ = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,  # a loaded machine answers slowly; the property is about answers, not speed
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
HELPER = "@helper:miniroom.local"


@dataclass(frozen=True)
class Target:
    """The server under test and the ids a request may point at."""

    url: str
    room_id: str
    event_ids: tuple[str, ...]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    store = RoomStore.open(Path(tmp_path_factory.mktemp("fuzz")))
    room = store.ensure_room("lobby", name="Lobby")
    store.join(room.room_id, HELPER, "Helper")
    message = store.append(room.room_id, HELPER, "m.room.message", {"msgtype": "m.text", "body": "hi"})
    relation = {"rel_type": "m.annotation", "event_id": message["event_id"], "key": "👍"}
    reaction = store.append(room.room_id, HELPER, "m.reaction", {"m.relates_to": relation})
    with serve_in_thread(create_app(store)) as url:
        yield Target(url, room.room_id, (message["event_id"], reaction["event_id"]))
    store.close()


# Text with the characters that broke the API before: lone surrogates, NUL, line breaks, emoji.
SHORT_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["a\ud800b", "\udfff", "\x00", "\r\n", "👍", "$", "!x:miniroom.local", " ", "x" * 300]),
)
ODD_TEXT = SHORT_TEXT | st.just("é" * 40_000)  # over the 64 KiB message limit in UTF-8
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    ODD_TEXT,
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ODD_TEXT, inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.sampled_from(["body", "thread_root", "reply_to", "key", "reason"]) | ODD_TEXT


def id_like(target: Target) -> st.SearchStrategy[str]:
    return st.sampled_from([*target.event_ids, target.room_id, "lobby", "$missing"]) | SHORT_TEXT


def json_objects(target: Target) -> st.SearchStrategy[str]:
    values = st.one_of(JSON_VALUES, id_like(target))
    return st.dictionaries(FIELDS, values, max_size=4).map(json.dumps)


def raw_bodies(target: Target) -> st.SearchStrategy[bytes | str]:
    nested = st.integers(min_value=1, max_value=60_000).map(lambda depth: "[" * depth + "]" * depth)
    digits = st.integers(min_value=1, max_value=6_000).map(lambda n: '{"body": 1' + "0" * n + "}")
    return st.one_of(
        json_objects(target),
        JSON_VALUES.map(json.dumps),
        st.binary(max_size=64),
        nested,
        digits,
        st.just(""),
    )


ROUTES = [
    ("GET", "/api/rooms"),
    ("GET", "/api/rooms/{room}/events"),
    ("POST", "/api/rooms/{room}/messages"),
    ("PUT", "/api/rooms/{room}/messages/{event}"),
    ("POST", "/api/rooms/{room}/messages/{event}/reactions"),
    ("POST", "/api/rooms/{room}/events/{event}/redact"),
    ("GET", "/api/stream"),
    ("DELETE", "/api/rooms/{room}/messages"),
    ("GET", "/api/{room}"),
]
QUERY_NAMES = st.sampled_from(["after", "before", "limit", "thread", "bundled", "room", "access_token"])
QUERY_VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["true", "0", "²", "1e3", "9" * 5_000, ""]),
    SHORT_TEXT,
)
CONTENT_TYPES = st.sampled_from(
    ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "text/plain", "", "x/;;"]
)
# Header values are Latin-1 bytes without line breaks.
HEADER_TEXT = st.text(
    st.characters(min_codepoint=32, max_codepoint=255, exclude_characters="\x7f"), max_size=30
)


@st.composite
def requests(draw: st.DrawFn, target: Target) -> httpx.Request:
    method, template = draw(st.sampled_from(ROUTES))
    segments = {"room": draw(id_like(target)), "event": draw(id_like(target))}
    path = template.format(**{name: escaped(value) for name, value in segments.items()})
    params = draw(st.lists(st.tuples(QUERY_NAMES | SHORT_TEXT, QUERY_VALUES), max_size=4))
    query = "&".join(f"{escaped(name)}={escaped(value)}" for name, value in params)
    headers = {"Content-Type": draw(CONTENT_TYPES)}
    if draw(st.booleans()):
        headers["Last-Event-ID"] = draw(HEADER_TEXT)
    body = draw(raw_bodies(target)) if method in ("POST", "PUT") else b""
    content = body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")
    encoded = {name.encode("latin-1"): value.encode("latin-1") for name, value in headers.items()}
    return httpx.Request(method, f"{target.url}{path}?{query}", headers=encoded, content=content)


def escaped(text: str) -> str:
    """`text` percent-encoded for a URL; a lone surrogate becomes bytes that are not valid UTF-8."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def answer(request: httpx.Request) -> httpx.Response:
    """The status and, for a refusal, the body; an event stream that opens is closed unread."""
    with httpx.Client(timeout=60) as http:
        response = http.send(request, stream=True)
        try:
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                return response
            response.read()
            return response
        finally:
            response.close()


def assert_clear(response: httpx.Response) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert response.headers["content-type"] == "application/json", response.text
        error = response.json()
        assert isinstance(error["errcode"], str)
        assert error["errcode"].startswith("M_")
        assert isinstance(error["error"], str)
        assert error["error"]
        assert len(error["error"]) < 600, "an error quotes the input briefly"


@FUZZ
@given(data=st.data())
def test_any_request_gets_an_answer_below_500(target: Target, data: st.DataObject) -> None:
    assert_clear(answer(data.draw(requests(target))))


@FUZZ
@given(data=st.data())
def test_any_message_body_is_stored_or_refused_clearly(target: Target, data: st.DataObject) -> None:
    body = data.draw(raw_bodies(target))
    content = body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")
    url = f"{target.url}/api/rooms/lobby/messages"
    response = answer(
        httpx.Request("POST", url, headers={"Content-Type": "application/json"}, content=content)
    )
    assert_clear(response)
    assert response.status_code in (201, 400, 404, 413), response.text
