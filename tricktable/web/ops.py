"""What an operator's tools ask a running server over HTTP: ``/metrics``, ``/healthz`` and ``/readyz``.

Prometheus scrapes ``/metrics``; an orchestrator's probes ask ``/healthz`` (the process answers:
restart it if not) and ``/readyz`` (it takes new tables: take it out of rotation if not). They
answer beside the viewer's pages on the HTTP port, and without them (``serve --no-viewer``), and
carry nothing about any table's cards, seeds or tokens. Readiness follows the same state as the
gRPC health service: not ready while the server drains, or while its storage can not write (a full
disk: :mod:`tricktable.server.store_health`).
"""

from __future__ import annotations

from aiohttp import web

from tricktable.server.lobby import Lobby
from tricktable.server.metrics import CONTENT_TYPE

LOBBY: web.AppKey[Lobby] = web.AppKey("lobby", Lobby)


def add_ops_routes(app: web.Application, lobby: Lobby) -> None:
    """Serve the lobby's metrics and health on ``app``."""
    app[LOBBY] = lobby
    app.add_routes([web.get("/metrics", metrics), web.get("/healthz", healthz), web.get("/readyz", readyz)])


async def metrics(request: web.Request) -> web.Response:
    """Every metric of the server, in Prometheus' text exposition format."""
    body = request.app[LOBBY].metrics.exposition()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})


async def healthz(_request: web.Request) -> web.Response:
    """The process is alive and its event loop answers."""
    return web.json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """200 while the server takes new tables; 503, with the reason, while it does not."""
    lobby = request.app[LOBBY]
    if lobby.closing:
        return web.json_response({"status": "not ready", "reason": "draining: no new tables"}, status=503)
    if not lobby.health.writable:
        return web.json_response({"status": "not ready", "reason": f"storage unavailable: {lobby.health.reason}"},
                                 status=503)
    return web.json_response({"status": "ready"})
