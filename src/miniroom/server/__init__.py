"""The HTTP side of miniroom: the embedded rooms API, Server-Sent Events and the web chat page."""

from miniroom.server.app import create_app
from miniroom.server.serve import DEFAULT_HOST, DEFAULT_PORT, build_server
from miniroom.server.site import DEFAULT_HOSTS

__all__ = ["DEFAULT_HOST", "DEFAULT_HOSTS", "DEFAULT_PORT", "build_server", "create_app"]
