"""`fetch.yml` and `search.yml`: each a `services:` list, read and validated by one set of rules.

Each entry has `name` (unique in its file), `type` (case-insensitive), `enabled` (true), `priority` (100,
lower first) and `settings`, checked against the type's settings. An unknown setting is a warning (its value
is kept); a missing required setting, a bad value or an unknown key rejects that service; a name written
twice, a priority that is not a whole number above zero, or a file that is not YAML are errors of the whole
file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.config.problems import Loc, Problem, Severity, describe_value, did_you_mean, key_path
from miniroom.config.settings_file import SettingsFileError
from miniroom.web.kinds import ServiceKind, ServiceType, SettingSpec, has_reference, value_problem
from miniroom.web.service_types import find_type, type_names

if TYPE_CHECKING:
    from miniroom.config.yaml_source import YamlSource

ENTRY_KEYS = ("name", "type", "enabled", "priority", "settings")
DEFAULT_PRIORITY = 100


@dataclass(frozen=True)
class ServiceEntry:
    """One valid service of a catalogue; `settings` as written, each value as text."""

    name: str
    type: ServiceType
    enabled: bool = True
    priority: int = DEFAULT_PRIORITY
    settings: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Catalogue:
    """The valid services of one file, in file order."""

    kind: ServiceKind
    services: tuple[ServiceEntry, ...] = ()

    def chain(self) -> list[ServiceEntry]:
        """The enabled services in the order they are tried: by priority, then as the file lists them."""
        return sorted((entry for entry in self.services if entry.enabled), key=lambda entry: entry.priority)

    def find(self, name: str) -> ServiceEntry | None:
        return next((entry for entry in self.services if entry.name == name), None)


@dataclass(frozen=True)
class CatalogueReading:
    """What a file holds: its valid services, every problem, and whether the whole file is unusable."""

    catalogue: Catalogue
    problems: list[Problem]
    file_error: bool = False


Locate = Callable[[Loc, str, Severity], Problem]
QuoteHint = Callable[[Loc, object], str]  # how to quote a value YAML read as other than text, or nothing


class _Checker:
    """Collects the problems of one catalogue's data, each located by `locate`."""

    def __init__(self, kind: ServiceKind, locate: Locate, quote_hint: QuoteHint) -> None:
        self.kind, self.locate, self.quote_hint = kind, locate, quote_hint
        self.problems: list[Problem] = []
        self.file_error = False

    def add(self, loc: Loc, message: str, severity: Severity = "error", *, whole_file: bool = False) -> None:
        self.problems.append(self.locate(loc, message, severity))
        self.file_error = self.file_error or whole_file

    def read(self, data: object) -> Catalogue:
        if data is None:
            return Catalogue(self.kind)
        if not isinstance(data, Mapping):
            self.add(
                (), f"must be a mapping with a services: list, got {describe_value(data)}", whole_file=True
            )
            return Catalogue(self.kind)
        for key in data:
            if key != "services":
                self.add(
                    (str(key),), "unknown key: the file has only services: (a list); it is ignored", "warning"
                )
        services = data.get("services")
        if services is None:
            return Catalogue(self.kind)
        if not isinstance(services, list):
            self.add(("services",), "must be a list (one `- name: ...` entry per service)", whole_file=True)
            return Catalogue(self.kind)
        entries = [self.entry(index, item) for index, item in enumerate(services)]
        self.check_names(services)
        return Catalogue(self.kind, tuple(entry for entry in entries if entry is not None))

    def check_names(self, services: list[object]) -> None:
        first: dict[str, int] = {}
        for index, item in enumerate(services):
            name = item.get("name") if isinstance(item, Mapping) else None
            if not isinstance(name, str):
                continue
            if name in first:
                message = (
                    f'"{name}" is also the name of services[{first[name]}]; names must be unique in '
                    f"{self.kind.file_name}: rename one"
                )
                self.add(("services", index, "name"), message, whole_file=True)
            first.setdefault(name, index)

    def entry(self, index: int, item: object) -> ServiceEntry | None:
        where: Loc = ("services", index)
        if not isinstance(item, Mapping):
            self.add(where, f"must be a mapping with name, type and settings, got {describe_value(item)}")
            return None
        name = item.get("name")
        left_out = f' (service "{name}" is not used)' if isinstance(name, str) and name.strip() else ""
        before = len(self.problems)
        self.unknown_entry_keys(where, item, left_out)
        if not isinstance(name, str) or not name.strip():
            got = "" if name is None else f", got {describe_value(name)}"
            message = f"is required: give the service a name (text){got}"
            if hint := self.quote_hint((*where, "name"), name):
                message = f"must be text{got}{hint}"
            self.add((*where, "name"), f"{message}; this service is not used")
        service_type = self.service_type(where, item.get("type"), left_out)
        enabled = self.enabled(where, item.get("enabled", True), left_out)
        priority = self.priority(where, item.get("priority", DEFAULT_PRIORITY))
        settings = self.settings(where, item.get("settings"), service_type, left_out)
        errors = [problem for problem in self.problems[before:] if problem.severity == "error"]
        if errors or service_type is None or settings is None or not isinstance(name, str):
            return None
        return ServiceEntry(name, service_type, enabled, priority or DEFAULT_PRIORITY, settings)

    def unknown_entry_keys(self, where: Loc, item: Mapping[object, object], left_out: str) -> None:
        for key in item:
            if key not in ENTRY_KEYS:
                hint = did_you_mean(str(key), ENTRY_KEYS)
                message = f"unknown key{f' ({hint})' if hint else ''}; an entry has {', '.join(ENTRY_KEYS)}"
                self.add((*where, str(key)), message + left_out)

    def service_type(self, where: Loc, value: object, left_out: str) -> ServiceType | None:
        types = ", ".join(type_names(self.kind))
        if value is None:
            self.add((*where, "type"), f"is required: add one of {types}{left_out}")
            return None
        found = find_type(self.kind, value) if isinstance(value, str) else None
        if found is None:
            hint = did_you_mean(str(value), type_names(self.kind))
            message = f"{describe_value(value)} is not a {self.kind.value} service type"
            self.add(
                (*where, "type"), f"{message}{f' ({hint})' if hint else ''}; the types are {types}{left_out}"
            )
        return found

    def enabled(self, where: Loc, value: object, left_out: str) -> bool:
        if isinstance(value, bool):
            return value
        self.add((*where, "enabled"), f"must be true or false, got {describe_value(value)}{left_out}")
        return False

    def priority(self, where: Loc, value: object) -> int | None:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        message = f"must be a whole number above zero (lower is tried first), got {describe_value(value)}"
        self.add((*where, "priority"), message, whole_file=True)
        return None

    def settings(
        self, where: Loc, value: object, service_type: ServiceType | None, left_out: str
    ) -> dict[str, str] | None:
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            self.add((*where, "settings"), f"must be a mapping of setting: value lines{left_out}")
            return None
        written: dict[str, str] = {}
        specs = service_type.spec_by_name if service_type is not None else {}
        for key, raw in value.items():
            text = _as_text(raw, specs.get(str(key)))
            if text is None:
                at = (*where, "settings", str(key))
                got = f"{describe_value(raw)}{self.quote_hint(at, raw)}"
                self.add(at, f"must be text or a number, got {got}{left_out}")
            elif text.strip():  # a blank value counts as unset: the default answers
                written[str(key)] = text
        if service_type is not None:
            self.check_settings((*where, "settings"), written, service_type, left_out)
        return written

    def check_settings(
        self, where: Loc, written: dict[str, str], service_type: ServiceType, left_out: str
    ) -> None:
        specs = service_type.spec_by_name
        for key, text in written.items():
            spec = specs.get(key)
            if spec is None:
                self.add((*where, key), _unknown_setting(key, service_type), "warning")
            elif not has_reference(text) and (problem := value_problem(spec, text)) is not None:
                self.add((*where, key), f"{problem}{_got(spec, text)}{left_out}")
        for spec in service_type.settings:
            if spec.required and spec.name not in written:
                # A key belongs in the environment, not in the file: the example says so.
                variable = f"${service_type.name.upper()}_API_KEY"
                example = f", e.g. {spec.name}: {variable}" if spec.kind == "secret" else ""
                message = f"{spec.name} is required by {service_type.name}: add it{example}"
                self.add(where, message + left_out)


def _as_text(value: object, spec: SettingSpec | None = None) -> str | None:
    """A setting's value as text; YAML's true and false only for a setting whose choices they are."""
    if isinstance(value, bool):
        word = str(value).lower()
        return word if spec is not None and word in spec.choices else None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _got(spec: SettingSpec, text: str) -> str:
    return "" if spec.kind == "secret" else f", got {describe_value(text)}"


def _unknown_setting(key: str, service_type: ServiceType) -> str:
    names = list(service_type.spec_by_name)
    hint = did_you_mean(key, names)
    hint = f" ({hint})" if hint else ""
    kept = "the value is kept as written"
    return (
        f"{service_type.name} has no such setting{hint}; {kept}. {service_type.name} takes {', '.join(names)}"
    )


def validate_catalogue(data: object, kind: ServiceKind, source: YamlSource | None = None) -> CatalogueReading:
    """Check parsed catalogue data (a file's, or a settings form's); `source` gives each problem its line."""

    def locate(loc: Loc, message: str, severity: Severity) -> Problem:
        if source is not None:
            return source.problem(loc, message, severity)
        return Problem(kind.file_name, None, key_path(loc, top="", quote=False), message, severity)

    checker = _Checker(kind, locate, source.quote_hint if source is not None else lambda loc, value: "")
    catalogue = checker.read(data)
    return CatalogueReading(catalogue, checker.problems, checker.file_error)


def read_catalogue(path: Path, kind: ServiceKind) -> CatalogueReading:
    """Read and check one catalogue file; FileNotFoundError when it does not exist."""
    if not path.exists() and not path.is_symlink():
        raise FileNotFoundError(path)
    from miniroom.config.yaml_source import load_yaml  # the YAML reader only for a project with the file

    try:
        source = load_yaml(path)
    except SettingsFileError as error:
        return CatalogueReading(Catalogue(kind), [error.problem], file_error=True)
    reading = validate_catalogue(source.data, kind, source)
    duplicates = list(source.problems)
    return CatalogueReading(
        reading.catalogue, duplicates + reading.problems, reading.file_error or bool(duplicates)
    )


def check_fetch_file(path: Path) -> list[Problem]:
    """Everything wrong in a fetch.yml, with line numbers (for `config check` and the settings page)."""
    return read_catalogue(path, ServiceKind.FETCH).problems


def check_search_file(path: Path) -> list[Problem]:
    """Everything wrong in a search.yml, with line numbers (for `config check` and the settings page)."""
    return read_catalogue(path, ServiceKind.SEARCH).problems
