"""The viewer's HTTP application: pages, their JSON and the live event streams.

Pages are static files (``web/static``) that read the JSON API:

| page | path | data |
| --- | --- | --- |
| lobby | ``/`` | ``/api/tables``, ``/api/tournaments`` (polled) |
| live table | ``/table/{id}`` | ``/api/tables/{id}/events`` (Server-Sent Events) |
| replay | ``/replay/{id}``, ``/replay/{tournament}/{match}`` | ``/api/replay/...``; ``/api/analysis/...?seat=S`` |
| tournament | ``/tournament/{name}`` | ``/api/tournaments/{name}`` (polled while it runs) |

Bad input gets a status and a one-line message, never a traceback: an
unknown table, record or tournament is 404, a record that does not replay
422, anything unexpected 500 with the details in the server's log only.

Who sees what (docs/viewer.md): a table withheld by the server's rule
(docs/protocol.md, section 19: a sealed tournament table until its deck set
is over, a table whose twin is not over) is, to the public, as unknown as a
table that does not exist. The holder of its owner token (a tournament's
organiser) sees and follows it: the token comes as ``Authorization: Bearer
TOKEN`` or in the cookie ``POST /api/organiser`` sets, never in an address.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web

from tricktable.server.withholding import MAX_OWNER_TOKEN, MIN_OWNER_TOKEN
from tricktable.web import live
from tricktable.web.analysed import (
    DEFAULT_SIMS,
    RETRY_AFTER_SECONDS,
    Analyses,
    AnalysisBusyError,
    AnalysisError,
    AnalysisTimeoutError,
)
from tricktable.web.catalog import Catalog, ServerCatalog, replay_path
from tricktable.web.ops import add_ops_routes
from tricktable.web.replay import ReplayError, replay

log = structlog.get_logger("tricktable.web")

STATIC = Path(str(resources.files("tricktable.web") / "static"))
CATALOG: web.AppKey[Catalog] = web.AppKey("catalog", Catalog)
ANALYSES: web.AppKey[Analyses] = web.AppKey("analyses", Analyses)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def make_app(catalog: Catalog, *, pages: bool = True, analyses: Analyses | None = None) -> web.Application:
    """The viewer over ``catalog``; a running server's also answers /metrics, /healthz and /readyz.

    ``pages=False``: those operator endpoints alone, without the viewer's pages and API. ``analyses``: where
    on-demand analyses run (default: a low-priority worker process, :mod:`tricktable.web.analysed`), stopped
    with the application.
    """
    app = web.Application(middlewares=[errors])
    app[CATALOG] = catalog
    app[ANALYSES] = analyses or Analyses()

    async def stop_analyses(app: web.Application) -> None:
        await app[ANALYSES].close()

    app.on_cleanup.append(stop_analyses)
    if isinstance(catalog, ServerCatalog):
        add_ops_routes(app, catalog.lobby)
    if not pages:
        return app
    app.add_routes([
        web.get("/", _page("lobby.html")),
        web.get("/table/{table_id}", table_page),
        web.get("/replay/{table_id}", replay_page),
        web.get("/replay/{tournament}/{match_id}", replay_page),
        web.get("/tournament/{tournament}", tournament_page),
        web.get("/api/tables", api_tables),
        web.get("/api/tables/{table_id}/events", api_table_events),
        web.get("/api/replay/{table_id}", api_replay),
        web.get("/api/replay/{tournament}/{match_id}", api_replay),
        web.get("/api/analysis/{table_id}", api_analysis),
        web.get("/api/analysis/{tournament}/{match_id}", api_analysis),
        web.get("/api/tournaments", api_tournaments),
        web.get("/api/tournaments/{tournament}", api_tournament),
        web.post("/api/organiser", api_organiser_sign_in),
        web.delete("/api/organiser", api_organiser_sign_out),
        web.get("/static/{name}", static_file),
    ])
    return app


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Statuses with a short message; an unexpected error is logged and answered 500 without its details."""
    try:
        return await handler(request)
    except web.HTTPException as error:  # a status chosen on purpose; aiohttp's own (no route) get a message
        if error.status >= 400 and not error.text:
            return web.Response(status=error.status, text=f"{error.status}: {error.reason}")
        raise
    except Exception:
        log.exception("web request failed", path=request.path)
        raise web.HTTPInternalServerError(text="500: internal error (see the server's log)") from None


def _catalog(request: web.Request) -> Catalog:
    return request.app[CATALOG]


#: The cookie that carries an organiser's owner token to every page and live stream (EventSource can send no
#: header): HttpOnly, so no script reads it back, and SameSite=Strict, so no other site's page sends it.
OWNER_COOKIE = "tricktable_owner"


def owner_token(request: web.Request) -> str:
    """The owner token the request carries (``Authorization: Bearer``, else the organiser cookie); '' if none."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.cookies.get(OWNER_COOKIE, "")


async def api_organiser_sign_in(request: web.Request) -> web.StreamResponse:
    """Keep an owner token in this browser's cookie (form or JSON field ``token``): withheld tables then show.

    The token is not checked here (that would tell a guesser when it guessed right): each table compares it
    with its own owner's. 400 when it is missing or not the shape of one.
    """
    if request.content_type == "application/json":
        body = await request.json()
        token = body.get("token") if isinstance(body, dict) else None
    else:
        token = (await request.post()).get("token")
    if not isinstance(token, str) or not MIN_OWNER_TOKEN <= len(token.strip()) <= MAX_OWNER_TOKEN:
        raise web.HTTPBadRequest(text=f"400: token: expected an owner token ({MIN_OWNER_TOKEN} to "
                                      f"{MAX_OWNER_TOKEN} characters)")
    response = web.json_response({"organiser": True})
    response.set_cookie(OWNER_COOKIE, token.strip(), httponly=True, samesite="Strict", path="/",
                        secure=request.secure)
    return response


async def api_organiser_sign_out(request: web.Request) -> web.StreamResponse:
    """Forget the owner token of this browser."""
    response = web.json_response({"organiser": False})
    response.del_cookie(OWNER_COOKIE, path="/")
    return response


def _page(name: str) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})
    return handler


#: The files the pages may load: the package's static folder, listed once (no path from a request reaches the disk).
STATIC_FILES = frozenset(p.name for p in STATIC.iterdir() if p.is_file())


async def static_file(request: web.Request) -> web.StreamResponse:
    """A stylesheet or script of the pages."""
    name = request.match_info["name"]
    if name not in STATIC_FILES:
        raise _not_found(f"no file {name!r}")
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


def _not_found(what: str) -> web.HTTPNotFound:
    return web.HTTPNotFound(text=f"404: {what}")


async def table_page(request: web.Request) -> web.StreamResponse:
    """The live page; an ended table no longer in memory goes to its replay."""
    table_id = request.match_info["table_id"]
    catalog = _catalog(request)
    if catalog.table(table_id, owner_token(request)) is not None:
        return await _page("table.html")(request)
    if await catalog.record(table_id, owner_token(request)) is not None:
        raise web.HTTPFound(replay_path(table_id))
    raise _not_found(f"no table {table_id!r}")


async def replay_page(request: web.Request) -> web.StreamResponse:
    """The replay page of an ended table or of a tournament's game."""
    await _record(request)
    return await _page("replay.html")(request)


async def tournament_page(request: web.Request) -> web.StreamResponse:
    """The tournament page."""
    name = request.match_info["tournament"]
    if await _catalog(request).tournament(name, owner_token(request)) is None:
        raise _not_found(f"no tournament {name!r}")
    return await _page("tournament.html")(request)


async def api_tables(request: web.Request) -> web.StreamResponse:
    """The lobby: every table the request may see, open ones first (``organiser``: it carries an owner token)."""
    catalog = _catalog(request)
    token = owner_token(request)
    return web.json_response({"live": catalog.live, "organiser": bool(token),
                              "tables": await catalog.tables(token)})


async def api_table_events(request: web.Request) -> web.StreamResponse:
    """A live table's spectator events as Server-Sent Events (404 when it is not in memory, or withheld).

    A stream that becomes withheld (a twin of its table created) ends with a ``withheld`` event.
    """
    table_id = request.match_info["table_id"]
    catalog = _catalog(request)
    token = owner_token(request)
    table = catalog.table(table_id, token)
    if table is None:
        raise _not_found(f"no live table {table_id!r}")
    return await live.stream(request, table, catalog.gate(table, token))


async def _record(request: web.Request) -> dict[str, Any]:
    catalog = _catalog(request)
    info = request.match_info
    if "tournament" in info:
        found = await catalog.tournament_record(info["tournament"], info["match_id"])
        what = f"no game {info['match_id']!r} in tournament {info['tournament']!r}"
    else:
        found = await catalog.record(info["table_id"], owner_token(request))
        what = f"no ended table {info['table_id']!r}"
    if found is None:
        raise _not_found(what)
    return found


async def api_replay(request: web.Request) -> web.StreamResponse:
    """Every step of an ended game, all hands face up (422 when the record does not replay)."""
    record = await _record(request)
    try:
        # In a worker thread: a long game takes the engine a good part of a second to replay, and the event loop
        # runs the server's tables and clocks meanwhile.
        frames = await asyncio.to_thread(replay, record)
    except ReplayError as error:
        raise web.HTTPUnprocessableEntity(text=f"422: {error}") from None
    response = web.json_response(frames)
    response.enable_compression()  # a long Cinq Cents game is thousands of similar frames
    return response


async def api_analysis(request: web.Request) -> web.StreamResponse:
    """A seat's decisions in an ended game, valued by the search bot from its own view (``?seat=S&sims=N``).

    400 when ``seat`` or ``sims`` is missing or not a whole number, 422 when either is out of range or the record
    does not replay, 503 (with ``Retry-After``) when the viewer runs and queues as many analyses as it takes, or
    when this one ran past its time limit.
    """
    record = await _record(request)
    try:
        seat = int(request.query["seat"])
        sims = int(request.query.get("sims", DEFAULT_SIMS))
    except (KeyError, ValueError):
        raise web.HTTPBadRequest(text="400: give ?seat=S (and optionally &sims=N), whole numbers") from None
    try:
        found = await request.app[ANALYSES].of(request.path, record, seat, sims)
    except AnalysisError as error:
        raise web.HTTPUnprocessableEntity(text=f"422: {error}") from None
    except (AnalysisBusyError, AnalysisTimeoutError) as error:
        raise web.HTTPServiceUnavailable(text=f"503: {error}",
                                         headers={"Retry-After": str(RETRY_AFTER_SECONDS)}) from None
    return web.json_response(found)


async def api_tournaments(request: web.Request) -> web.StreamResponse:
    """The tournaments of the database (or the export folder)."""
    return web.json_response({"tournaments": await _catalog(request).tournaments()})


async def api_tournament(request: web.Request) -> web.StreamResponse:
    """One tournament's standings, pairs, SPRT, progress and games."""
    name = request.match_info["tournament"]
    page = await _catalog(request).tournament(name, owner_token(request))
    if page is None:
        raise _not_found(f"no tournament {name!r}")
    return web.json_response(page)
