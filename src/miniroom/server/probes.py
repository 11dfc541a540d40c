"""What a service manager asks: `/healthz` (the process answers), `/readyz` (it can take messages) and
`/metrics` (its work so far, in the Prometheus text format)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from miniroom.config.metrics import CONTENT_TYPE
from miniroom.rooms.runtime.metrics import RoomMetrics
from miniroom.transports.embedded import RoomStore

# Probes answer anyone who can connect, without the API token: they tell only "ok" or why not ready.
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
METRICS_PATH = "/metrics"

Check = Callable[[], str | None]  # why something is not ready, or None


@dataclass
class Readiness:
    """The checks of `/readyz` (with embedded rooms, beside the room store's): the transport's, and the
    runtime's once it exists."""

    checks: list[Check] = field(default_factory=list)

    def problem(self, store: RoomStore | None) -> str | None:
        checks = [*self.checks, *([store.write_problem] if store is not None else [])]
        for check in checks:
            problem = check()
            if problem is not None:
                return problem
        return None


def metrics_of(request: Request) -> RoomMetrics:
    metrics: RoomMetrics = request.app.state.metrics
    return metrics


async def healthz(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok\n", headers={"Cache-Control": "no-store"})


async def readyz(request: Request) -> PlainTextResponse:
    readiness: Readiness = request.app.state.readiness
    problem = await asyncio.to_thread(readiness.problem, request.app.state.store)
    headers = {"Cache-Control": "no-store"}
    if problem is not None:
        return PlainTextResponse(f"not ready: {problem}\n", status_code=503, headers=headers)
    return PlainTextResponse("ready\n", headers=headers)


async def metrics(request: Request) -> Response:
    return Response(
        metrics_of(request).exposition(), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"}
    )


ROUTES = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
    Route(METRICS_PATH, metrics, methods=["GET"]),
]
