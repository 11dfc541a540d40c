"""A service's settings at call time: `$VAR` filled in (the model's variables, then the environment), the
type's defaults added, each value checked against its kind; and the secrets no message may show."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from miniroom.config.expand import expand, filled_values
from miniroom.web.catalogue import ServiceEntry
from miniroom.web.kinds import canonical_choice, value_problem

log = logging.getLogger(__name__)
REDACTED = "***"
_SHORTEST_SECRET = 3  # shorter values would blank out ordinary words
_warned: set[str] = set()  # each unset variable is logged once per process, not at every call
_known_secrets: set[str] = set()  # every secret a service was given in this process: no log line shows one


class _RedactingFilter(logging.Filter):
    """Blanks the services' secrets out of a library's log lines (httpx logs each request's URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _known_secrets:
            message = record.getMessage()
            redacted = redact(message, _known_secrets)
            if redacted != message:
                record.msg, record.args = redacted, ()
        return True


logging.getLogger("httpx").addFilter(_RedactingFilter())


class SettingsError(Exception):
    """A setting whose expanded value does not fit its kind; the message names the setting, never a secret."""


@dataclass(frozen=True)
class ServiceSettings:
    """One service's expanded settings (defaults included), by the names the type tables use."""

    service: str
    values: Mapping[str, str]
    secrets: frozenset[str] = frozenset()

    def text(self, name: str) -> str | None:
        return self.values.get(name)

    def number(self, name: str) -> float:
        return float(self.values[name])

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret value replaced, longest first (one secret may contain another)."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= _SHORTEST_SECRET:
            text = text.replace(secret, REDACTED)
    return text


def resolve_settings(
    entry: ServiceEntry, variables: Mapping[str, str], environ: Mapping[str, str]
) -> ServiceSettings:
    """The entry's settings, expanded and checked; SettingsError names a value that does not fit."""
    specs = entry.type.spec_by_name
    values: dict[str, str] = {
        spec.name: spec.default for spec in entry.type.settings if spec.default is not None
    }
    secrets: set[str] = set()
    for name, written in entry.settings.items():
        expanded = expand(written, variables, environ)
        for warning in expanded.warnings:
            line = f"{entry.type.kind.file_name}: service {entry.name!r}, setting {name}: {warning}"
            if line not in _warned:
                _warned.add(line)
                log.warning("%s", line)
        secrets.update(filled_values(written, variables, environ))
        spec = specs.get(name)
        if spec is not None and spec.kind == "secret":
            secrets.add(expanded.text)
        values[name] = expanded.text
    for name, value in list(values.items()):
        spec = specs.get(name)
        if spec is None:
            continue
        problem = value_problem(spec, value)
        if problem is not None:
            written = entry.settings.get(name, value)  # as written: never the expanded value
            raise SettingsError(f"setting {name} {problem} (written as {written!r})")
        if spec.kind == "enum":
            values[name] = canonical_choice(spec, value) or value
    _check_required(entry, values)
    _known_secrets.update(secret for secret in secrets if len(secret) >= _SHORTEST_SECRET)
    return ServiceSettings(entry.name, values, frozenset(secrets))


def _check_required(entry: ServiceEntry, values: Mapping[str, str]) -> None:
    """SettingsError for a required setting without a value (a key the file no longer gives, see lists.py)."""
    for spec in entry.type.settings:
        if spec.required and spec.name not in values:
            raise SettingsError(f"setting {spec.name} is required and has no value")
