"""A project's catalogues as the tools use them: `.miniroom/fetch.yml` (created with one Direct service when
missing) and `.miniroom/search.yml` (never created: no search service until the user adds one)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from miniroom.config.settings_file import SettingsFileError, read_settings_text
from miniroom.web.catalogue import Catalogue, ServiceEntry, read_catalogue
from miniroom.web.kinds import ServiceKind
from miniroom.web.lists import WebCatalogues
from miniroom.web.service_types import find_type

log = logging.getLogger(__name__)

DEFAULT_FETCH_NAME = "Direct HTTP"
DEFAULT_FETCH_YML = f"""\
# Page fetching for the `fetch` tool: services tried in priority order (lower first); when one fails, the next
# one is tried. Types: Direct, Proxied, BrowserEmulation, Nodriver, RemoteBrowser, ScriptFetch. Values may use
# $VAR, ${{VAR}} and ${{VAR:-default}}, filled in from the model's variables, then the environment.
# Loopback and private network addresses (a dev server on localhost) are fetched only by a service with
# AllowPrivateNetwork: true in its settings; link-local, cloud metadata and miniroom's own ports never.
services:
  - name: {DEFAULT_FETCH_NAME}
    type: Direct
    enabled: true
    priority: 100
    settings:
      TimeoutSec: 30
"""


def catalogue_path(project_dir: Path, kind: ServiceKind) -> Path:
    return project_dir / kind.path


def default_fetch_catalogue() -> Catalogue:
    direct = find_type(ServiceKind.FETCH, "Direct")
    assert direct is not None
    return Catalogue(
        ServiceKind.FETCH, (ServiceEntry(DEFAULT_FETCH_NAME, direct, settings={"TimeoutSec": "30"}),)
    )


def missing_file_catalogue(kind: ServiceKind) -> Catalogue:
    """The services a kind has without its file: the default Direct one for fetch, none for search."""
    return default_fetch_catalogue() if kind is ServiceKind.FETCH else Catalogue(kind)


def ensure_fetch_file(project_dir: Path) -> None:
    """Create `.miniroom/fetch.yml` with the default Direct service unless it exists; never overwrite."""
    path = catalogue_path(project_dir, ServiceKind.FETCH)
    try:
        path.parent.mkdir(exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        return
    except OSError as error:
        log.warning("Could not create %s (%s); fetch uses the built-in Direct service.", path, error.strerror)
        return
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(DEFAULT_FETCH_YML)


def load_catalogue(project_dir: Path, kind: ServiceKind) -> tuple[Catalogue, list[str]]:
    """The services the tool gets, and warnings for the log.

    A missing fetch.yml, or one unusable as a whole, reads as the default Direct service (one warning); a
    missing or unusable search.yml as no service. A rejected service is left out, with a warning naming it.
    """
    path = catalogue_path(project_dir, kind)
    fallback = missing_file_catalogue(kind)
    if kind is ServiceKind.FETCH and _unedited_default(path):
        return fallback, []  # what the default file says, known without importing the YAML reader
    try:
        reading = read_catalogue(path, kind)
    except FileNotFoundError:
        return fallback, []
    errors = [problem for problem in reading.problems if problem.severity == "error"]
    if reading.file_error:
        details = "; ".join(problem.detail() for problem in errors)
        instead = "the built-in Direct service is used" if kind is ServiceKind.FETCH else "search is off"
        return fallback, [f"{path} is not valid ({details}), so {instead}; run `miniroom config check`."]
    return reading.catalogue, [str(problem) for problem in reading.problems]


def _unedited_default(path: Path) -> bool:
    """Whether the fetch.yml is the one `ensure_fetch_file` wrote, untouched."""
    try:
        return read_settings_text(path) == DEFAULT_FETCH_YML
    except (OSError, SettingsFileError):
        return False


def load_catalogues(project_dir: Path) -> WebCatalogues:
    """Both of the project's catalogues as `load_catalogue` reads them, with their warnings."""
    fetch, fetch_warnings = load_catalogue(project_dir, ServiceKind.FETCH)
    search, search_warnings = load_catalogue(project_dir, ServiceKind.SEARCH)
    return WebCatalogues(fetch, search, (*fetch_warnings, *search_warnings))
