"""web layer: the `fetch` and `search` services, their catalogues (`fetch.yml`, `search.yml`) and the chain
that tries them by priority. Below `agent/`, above `tools/`; it knows nothing of the loop.

The layer's one public face: other layers import from here, never from its modules (the architecture test
holds them to it); each name loads with its module at first use.
"""

import typing

from miniroom.config import faces

if typing.TYPE_CHECKING:
    from miniroom.web.catalogue import DEFAULT_PRIORITY, check_fetch_file, check_search_file
    from miniroom.web.kinds import ServiceKind, ServiceType, SettingSpec
    from miniroom.web.listeners import add_own_listener, remove_own_listener
    from miniroom.web.lists import WebCatalogues, catalogues_from_record, record_of
    from miniroom.web.offer import web_tools
    from miniroom.web.probe import TEST_PAGE, TEST_QUERY, find_saved_service, run_service_test
    from miniroom.web.project import DEFAULT_FETCH_YML, ensure_fetch_file, load_catalogues
    from miniroom.web.service_types import SERVICE_TYPES

__all__ = [
    "DEFAULT_FETCH_YML",
    "DEFAULT_PRIORITY",
    "SERVICE_TYPES",
    "TEST_PAGE",
    "TEST_QUERY",
    "ServiceKind",
    "ServiceType",
    "SettingSpec",
    "WebCatalogues",
    "add_own_listener",
    "catalogues_from_record",
    "check_fetch_file",
    "check_search_file",
    "ensure_fetch_file",
    "find_saved_service",
    "load_catalogues",
    "record_of",
    "remove_own_listener",
    "run_service_test",
    "web_tools",
]

if not typing.TYPE_CHECKING:  # for mypy, the names are the imports above
    __getattr__ = faces.lazy_face(__name__, __file__)
