"""A live table for the browser: the spectators' view and event log, as Server-Sent Events.

No second notion of what a spectator may see: the page gets exactly the
log the Spectate stream sends (:meth:`tricktable.server.tables.Table.follow_batches`
with the spectators' audience) and the spectators' view
(:meth:`tricktable.server.tables.Table.view`, i.e. :func:`tricktable.server.visibility.public_view`).
Each message carries one batch of events, the view after them, the seats'
presence and counters, and the clock of the seat to act. Message ids are
sequence numbers, so a browser that reconnects (``Last-Event-ID``) resumes
where it stopped.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tricktable.server.errors import InvalidRequestError, ShuttingDownError, WithheldError
from tricktable.server.events import Event
from tricktable.server.service import check_resume_point
from tricktable.server.tables import Table
from tricktable.web.jsonview import board_json, event_json


def table_info(table: Table) -> dict[str, Any]:
    """What the page shows about a table besides the board: seats, presence, counters, status."""
    return {
        "id": table.id, "game": table.game, "players": table.players, "status": table.status.value,
        "options": dict(table.options), "seed_sha256": table.seed_sha256,
        "seats": [{"seat": s.seat, "name": s.name, "connected": s.connected, "away": s.away,
                   "timeouts": s.timeouts, "default_actions": s.defaults} for s in table.seats],
    }


def clock(table: Table) -> dict[str, Any] | None:
    """The running clock of the seat to act (its decision deadline and bank), or None when nobody is to act.

    Only the times are taken from the pending decision: its view and legal actions are the seat's own.
    """
    seat = table.match.to_act
    pending = table.pending_for(seat) if seat is not None and not table.is_over else None
    if pending is None:
        return None
    return {"seat": pending.seat, "deadline": pending.deadline, "bank": pending.bank_seconds, "now": time.time()}


def message(table: Table, events: list[Event]) -> dict[str, Any]:
    """One message of the stream: events (already the spectators'), then the state after them."""
    return {"events": [{"seq": e.seq, "time": e.time, **event_json(e.body)} for e in events],
            "board": board_json(table.view(None)), "table": table_info(table), "clock": clock(table)}


def resume_point(request: web.Request, table: Table) -> int:
    """The last sequence number the browser has (``Last-Event-ID`` on a reconnect, else ``?after=``); 0 if none.

    Checked as the Spectate stream checks ``last_seen_sequence``: beyond the log is refused (400), not clamped.
    """
    raw = request.headers.get("Last-Event-ID") or request.query.get("after") or "0"
    try:
        after = max(0, int(raw))
        check_resume_point(table, None, after)
    except ValueError:
        raise web.HTTPBadRequest(text="400: after: expected a sequence number") from None
    except InvalidRequestError as error:
        raise web.HTTPBadRequest(text=f"400: {error}") from None
    return after


async def stream(request: web.Request, table: Table, gate: Callable[[], None] | None = None) -> web.StreamResponse:
    """Send the table's spectator events from the resume point until the table has ended and all are sent.

    ``gate`` (:meth:`tricktable.web.catalog.Catalog.gate`) is checked before each batch: once the table is
    withheld (a twin of it was created) the stream sends a last ``withheld`` event, with the reason, and ends.
    """
    after = resume_point(request, table)
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    seq = after
    try:
        if gate is not None:
            gate()  # withheld while the response was prepared: not even the state goes out
        await _send(response, "state", after, message(table, []))
        async for batch in table.follow_batches(None, after, gate=gate):
            events = [item for item in batch if isinstance(item, Event)]  # spectators get events only
            if events:
                seq = events[-1].seq
            await _send(response, "batch", seq, message(table, events))
        await _send(response, "end", seq, message(table, []))
    except ConnectionResetError:  # the page was closed: nothing more to send
        pass
    except ShuttingDownError:  # suspended for a restart: the browser's EventSource resumes from the last id
        pass
    except WithheldError as error:  # no more of this table for this page: the page closes its EventSource
        with contextlib.suppress(ConnectionResetError):
            await _send(response, "withheld", seq, {"reason": error.message})
    return response


async def _send(response: web.StreamResponse, kind: str, seq: int, data: dict[str, Any]) -> None:
    payload = json.dumps(data, separators=(",", ":"))
    await response.write(f"id: {seq}\nevent: {kind}\ndata: {payload}\n\n".encode())
