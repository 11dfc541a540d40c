"""A project's two service lists together, and as a session's `settings` entry records them.

A conversation keeps the fetch and search lists it started with: the entry holds each catalogue's services as
written (name, type, enabled, priority, settings with their `$VAR` references unexpanded: expansion happens at
call time).

No secret is written into the session file. A secret setting (kind secret, or a name such as ApiKey, Token
or Password) is recorded as written only when it is a bare variable reference (`$BRAVE_API_KEY`,
`${BRAVE_API_KEY}`). A value written literally in the file (a pasted key, or a `${KEY:-default}` whose
default may be one) is left out and its setting named under `fromFile`: a resumed session takes that one
value from the file as it is now, from the service of the same name. Everything else comes from the record,
so an edit of the file changes no conversation under way; only a literal key follows the file (a rotated key
reaches running conversations, which is what one wants of a key). When the file no longer has the value, the
service goes on without it, with a warning, and fails at call time naming the setting.

Pure: data in, data out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from miniroom.config.secrets import is_secret_name, is_secret_value
from miniroom.web.catalogue import Catalogue, ServiceEntry
from miniroom.web.kinds import ServiceKind, ServiceType
from miniroom.web.service_types import find_type

FROM_FILE = "fromFile"


@dataclass(frozen=True)
class WebCatalogues:
    """The fetch and search catalogues an agent uses, and the warnings for the log that came with them."""

    fetch: Catalogue
    search: Catalogue
    warnings: tuple[str, ...] = ()

    def of(self, kind: ServiceKind) -> Catalogue:
        return self.fetch if kind is ServiceKind.FETCH else self.search


def _is_secret_setting(service_type: ServiceType, name: str) -> bool:
    spec = service_type.spec_by_name.get(name)
    return (spec is not None and spec.kind == "secret") or is_secret_name(name)


def _entry_record(entry: ServiceEntry) -> dict[str, Any]:
    kept = {
        name: text
        for name, text in entry.settings.items()
        if not (_is_secret_setting(entry.type, name) and is_secret_value(text))
    }
    record: dict[str, Any] = {
        "name": entry.name,
        "type": entry.type.name,
        "enabled": entry.enabled,
        "priority": entry.priority,
        "settings": kept,
    }
    left_out = [name for name in entry.settings if name not in kept]
    return record | ({FROM_FILE: left_out} if left_out else {})


def record_of(web: WebCatalogues) -> dict[str, list[dict[str, Any]]]:
    """The lists as the session records them: every service of each file, literal secrets left out."""
    return {kind.value: [_entry_record(entry) for entry in web.of(kind).services] for kind in ServiceKind}


def catalogues_from_record(record: object, current: WebCatalogues) -> WebCatalogues | None:
    """The recorded lists, each literal secret taken from `current` (the files now); None when `record`
    holds no lists (a session recorded before sessions kept them)."""
    if not isinstance(record, Mapping) or not all(isinstance(record.get(k.value), list) for k in ServiceKind):
        return None
    warnings: list[str] = []
    fetch, search = (
        _catalogue(kind, record[kind.value], current.of(kind), warnings)
        for kind in (ServiceKind.FETCH, ServiceKind.SEARCH)
    )
    return WebCatalogues(fetch, search, tuple(warnings))


def _catalogue(kind: ServiceKind, items: list[Any], now: Catalogue, warnings: list[str]) -> Catalogue:
    entries = []
    for item in items:
        entry = _entry(kind, item)
        if entry is None:
            warnings.append(f"{kind.file_name}: a service this conversation recorded is unreadable: left out")
            continue
        entries.append(_with_file_secrets(entry, _names(item.get(FROM_FILE)), now, warnings))
    return Catalogue(kind, tuple(entries))


def _entry(kind: ServiceKind, item: object) -> ServiceEntry | None:
    """A recorded service, or None when the record is not one (a damaged or hand-edited session)."""
    if not isinstance(item, Mapping):
        return None
    name, type_name, settings = item.get("name"), item.get("type"), item.get("settings")
    enabled, priority = item.get("enabled"), item.get("priority")
    service_type = find_type(kind, type_name) if isinstance(type_name, str) else None
    if (
        not isinstance(name, str)
        or service_type is None
        or not isinstance(enabled, bool)
        or not (isinstance(priority, int) and not isinstance(priority, bool))
        or not isinstance(settings, Mapping)
        or not all(isinstance(value, str) for value in settings.values())
    ):
        return None
    return ServiceEntry(name, service_type, enabled, priority, {str(k): v for k, v in settings.items()})


def _names(value: object) -> list[str]:
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def _with_file_secrets(
    entry: ServiceEntry, names: list[str], now: Catalogue, warnings: list[str]
) -> ServiceEntry:
    """`entry` with the secrets it left out of the record, as the file of today gives them."""
    if not names:
        return entry
    in_file = now.find(entry.name)
    settings = dict(entry.settings)
    for name in names:
        value = in_file.settings.get(name) if in_file is not None else None
        if value is None:
            warnings.append(
                f"{now.kind.file_name}: service {entry.name!r} had its {name} written in the file when this "
                "conversation started, and the file no longer has it: the service goes on without it"
            )
            continue
        settings[name] = value
    return ServiceEntry(entry.name, entry.type, entry.enabled, entry.priority, settings)
