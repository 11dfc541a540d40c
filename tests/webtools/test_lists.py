"""The service lists as a session records them: everything as written but literal secrets, and back."""

from __future__ import annotations

import json

from miniroom.web.catalogue import Catalogue, validate_catalogue
from miniroom.web.kinds import ServiceKind
from miniroom.web.lists import WebCatalogues, catalogues_from_record, record_of

FETCH, SEARCH = ServiceKind.FETCH, ServiceKind.SEARCH


def catalogue(kind: ServiceKind, services: list[dict[str, object]]) -> Catalogue:
    reading = validate_catalogue({"services": services}, kind)
    assert not [problem for problem in reading.problems if problem.severity == "error"]
    return reading.catalogue


PROXY: dict[str, object] = {
    "name": "Office",
    "type": "proxied",
    "enabled": False,
    "priority": 7,
    "settings": {"ProxyUrl": "http://proxy:3128", "ProxyUsername": "ann", "ProxyPassword": "hunter2"},
}
BRAVE: dict[str, object] = {
    "name": "Brave",
    "type": "Brave",
    "settings": {"ApiKey": "$BRAVE_API_KEY", "Token": "${T:-tok-123}"},
}


def lists() -> WebCatalogues:
    return WebCatalogues(catalogue(FETCH, [PROXY]), catalogue(SEARCH, [BRAVE]))


def test_the_record_holds_the_lists_as_written_but_no_literal_secret() -> None:
    record = record_of(lists())
    assert record == {
        "fetch": [
            {
                "name": "Office",
                "type": "Proxied",
                "enabled": False,
                "priority": 7,
                "settings": {"ProxyUrl": "http://proxy:3128", "ProxyUsername": "ann"},
                "fromFile": ["ProxyPassword"],
            }
        ],
        "search": [
            {
                "name": "Brave",
                "type": "Brave",
                "enabled": True,
                "priority": 100,
                "settings": {"ApiKey": "$BRAVE_API_KEY"},
                "fromFile": ["Token"],  # an unknown setting named as a secret; its default is one
            }
        ],
    }
    assert "hunter2" not in json.dumps(record)
    assert "tok-123" not in json.dumps(record)


def test_a_record_reads_back_with_its_secrets_from_the_file_of_today() -> None:
    record = json.loads(json.dumps(record_of(lists())))
    rotated = {**PROXY, "settings": {"ProxyUrl": "http://elsewhere:1", "ProxyPassword": "new"}}
    today = WebCatalogues(catalogue(FETCH, [rotated]), Catalogue(SEARCH))
    restored = catalogues_from_record(record, today)
    assert restored is not None
    [office] = restored.fetch.services
    assert (office.enabled, office.priority) == (False, 7)
    assert office.settings == {
        "ProxyUrl": "http://proxy:3128",
        "ProxyUsername": "ann",
        "ProxyPassword": "new",
    }
    [brave] = restored.search.services
    assert brave.settings == {"ApiKey": "$BRAVE_API_KEY"}
    assert restored.warnings == (
        "search.yml: service 'Brave' had its Token written in the file when this conversation started, and "
        "the file no longer has it: the service goes on without it",
    )


def test_no_lists_or_a_damaged_service_in_the_record() -> None:
    assert catalogues_from_record(None, lists()) is None
    assert catalogues_from_record({"fetch": []}, lists()) is None
    damaged = {"fetch": [{"name": "X", "type": "NoSuchType"}, "junk"], "search": []}
    restored = catalogues_from_record(damaged, lists())
    assert restored is not None
    assert restored.fetch.services == ()
    assert restored.search.services == ()
    assert len(restored.warnings) == 2
