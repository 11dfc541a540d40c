"""Settings freeze with a session: the resolved profile settings, the retry policy, the fetch and search
service lists, and a fingerprint of each other settings file that shapes the agent (mcp.yml, hooks.yml),
recorded in its `settings` entry. A resumed session keeps them; when the profile, retry policy or those files
changed since, a new session with the same history and the new settings takes over, and says what changed
(it goes on with the service lists the conversation started with)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from miniroom.agent.profile import ProfileSettings, ResolvedProfile
from miniroom.config.problems import camel_key
from miniroom.engine import RetryPolicy, Session
from miniroom.web.lists import WebCatalogues, catalogues_from_record, record_of

log = logging.getLogger(__name__)
SETTINGS_ENTRY = "settings"
# retry.yml's keys, and the policy's fields they set
_RETRY_KEYS = (("retryIntervalSeconds", "interval_seconds"), ("maxAttempts", "max_attempts"))


def settings_from_entry(entry: dict[str, Any] | None) -> ProfileSettings:
    """The stored settings; a setting the entry does not hold (older sessions) has its default."""
    stored: dict[str, Any] = (entry or {}).get("settings") or {}
    values: dict[str, Any] = {}
    for field in dataclasses.fields(ProfileSettings):
        if field.name in stored:
            value = stored[field.name]
            values[field.name] = tuple(value) if isinstance(value, list) else value
    return ProfileSettings(**values)


def retry_from_entry(entry: dict[str, Any] | None) -> RetryPolicy | None:
    """The stored retry policy, or None for a session that recorded none."""
    stored = (entry or {}).get("retry")
    if not isinstance(stored, dict):
        return None
    defaults = RetryPolicy()
    values = {attr: stored.get(key, getattr(defaults, attr)) for key, attr in _RETRY_KEYS}
    return RetryPolicy(float(values["interval_seconds"]), int(values["max_attempts"]))


def session_settings(session: Session) -> ProfileSettings:
    """The settings a session was created with (built-in defaults for a session that recorded none)."""
    return settings_from_entry(session.latest(SETTINGS_ENTRY))


def session_web(session: Session, current: WebCatalogues) -> WebCatalogues:
    """The fetch and search lists a session works with: those it recorded at creation (literal secrets taken
    from `current`, see `miniroom.web.lists`), or `current`, the files now, for a new session or one recorded
    before sessions kept the lists."""
    entry = session.latest(SETTINGS_ENTRY)
    recorded = catalogues_from_record(entry.get("web") if entry else None, current)
    return current if recorded is None else recorded


def settings_changes(
    was: tuple[ProfileSettings, RetryPolicy], now: tuple[ProfileSettings, RetryPolicy]
) -> dict[str, tuple[Any, Any]]:
    """Each setting that differs, by the name people write it with, as (was, now)."""
    pairs = [
        (camel_key(field.name), getattr(was[0], field.name), getattr(now[0], field.name))
        for field in dataclasses.fields(ProfileSettings)
    ]
    pairs += [(key, getattr(was[1], attr), getattr(now[1], attr)) for key, attr in _RETRY_KEYS]
    return {name: (plain_value(old), plain_value(new)) for name, old, new in pairs if old != new}


def file_changes(was: Mapping[str, str], now: Mapping[str, str]) -> dict[str, tuple[Any, Any]]:
    """Each settings file whose fingerprint differs (None where there was or is no file), as (was, now)."""
    names = sorted(set(was) | set(now))
    return {name: (was.get(name), now.get(name)) for name in names if was.get(name) != now.get(name)}


def plain_value(value: Any) -> Any:
    """As JSON and people show it: a list, and a whole number of seconds as 60, never 60.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return list(value) if isinstance(value, tuple) else value


def frozen_settings(
    session: Session,
    resolved: ResolvedProfile,
    retry: RetryPolicy,
    same_path: bool = False,
    files: Mapping[str, str] | None = None,
    web: WebCatalogues | None = None,
) -> tuple[Session, ProfileSettings, RetryPolicy]:
    """The session to work in and its settings: a new session records the resolved ones; a resumed one keeps
    its own, or, when they changed, is recreated with the new ones (`same_path`: see `Session.recreate`).
    `files` holds the fingerprint of each settings file beyond the profile and retry.yml, by name; `web` the
    service lists to record (see `session_web`), never compared."""
    files = dict(files or {})
    entry = session.latest(SETTINGS_ENTRY)
    if entry is not None:
        stored = settings_from_entry(entry), retry_from_entry(entry) or retry
        changes = settings_changes(stored, (resolved.settings, retry))
        changes |= file_changes(entry.get("files") or {}, files)
        if not changes:
            return session, *stored
        previous_id = session.id
        session = Session.recreate(session, changes, same_path)
        changed = ", ".join(changes)
        log.info("Settings changed (%s): session %s goes on as %s", changed, previous_id, session.id)
    session.append(
        SETTINGS_ENTRY,
        profile=resolved.name,
        settings=dataclasses.asdict(resolved.settings),
        retry={key: getattr(retry, attr) for key, attr in _RETRY_KEYS},
        files=files,
        **({} if web is None else {"web": record_of(web)}),
    )
    return session, resolved.settings, retry
