"""How much one server, and one client, may hold open: the limits' one definition.

A module of its own, with nothing but the rules' deal limit behind it, so that whatever only
shows or checks these numbers (``tricktable serve --help``, a configuration file) does not load
the lobby and the tables they govern.
"""

from __future__ import annotations

from dataclasses import dataclass

from tricktable.rules.match import MAX_DEALS


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """How much one server, and one client, may hold open."""

    max_tables: int = 2000
    max_tables_per_client: int = 500
    max_streams_per_client: int = 2000
    #: Open streams per connection (below the address's, so one connection can not lock its address out).
    max_streams_per_connection: int = 500
    max_seekers: int = 2000
    #: Open streams at once per seat token (Play and Watch): a client reconnecting in a loop can not pile them up.
    max_streams_per_seat: int = 4
    #: Seats' conversations open at once on one PlayMany call (each also counts as a stream of its client).
    max_conversations_per_call: int = 1000
    #: Spectators at once per table.
    max_spectators_per_table: int = 200
    #: Seconds a Play stream has to send its join; then it ends with DEADLINE_EXCEEDED.
    join_deadline_seconds: float = 10.0
    #: Refused messages a stream may send at once, then per second, before it ends with RESOURCE_EXHAUSTED.
    max_rejections_burst: int = 100
    max_rejections_per_second: float = 10.0
    #: Unary calls (:mod:`tricktable.server.call_rate`) per seat token (SubmitAction) and per connection: a burst
    #: at once, then a rate a second (0: no limit). A move the table asked for is not counted, so these bound only
    #: refused and repeated answers, polls and tables created.
    call_burst_per_token: int = 100
    call_rate_per_token: float = 10.0
    call_burst_per_connection: int = 1000
    call_rate_per_connection: float = 100.0
    #: How long an ended table stays in memory so late or resuming streams get its last events.
    retain_seconds: float = 30.0
    #: A table is aborted after this many deals without a result (no table runs for ever).
    max_deals: int = MAX_DEALS
    #: Ended tables whose records wait to be stored (kept in memory, retried): at this many, no new table.
    max_unstored_records: int = 2000
    #: Free bytes the data directory's file system keeps: below, no new tables or seats (0: not checked).
    min_free_bytes: int = 16 * 1024 * 1024
