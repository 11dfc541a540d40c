"""The Matrix transport: agents and the router as accounts on a homeserver (mautrix client)."""

from miniroom.transports.matrix.errors import MatrixTransportError
from miniroom.transports.matrix.transport import MatrixTransport

__all__ = ["MatrixTransport", "MatrixTransportError"]
