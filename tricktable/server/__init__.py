"""The authoritative Tricktable game server (grpc.aio).

Modules, each named for its job: ``tables`` (one authoritative table: the
match, event logs per audience, decisions, clocks, presence), ``clocks``
(decision limits, time banks, the default action), ``seats`` (join tokens
and seat state), ``visibility`` (the spectators' view, from the rules' seat
views), ``events`` (what a table tells its audiences, wire-independent),
``lobby`` (the set of tables, seek, storing ended tables), ``limits`` (how
much a server and one client may hold open),
``storage`` (SQLite records), ``errors`` (domain errors and their status
codes; in-band rejection reasons), ``wire`` (events and tables as protocol
messages), ``service`` (the thin gRPC servicer), ``interceptors`` (access
log, error mapping, per-client stream limits), ``logging`` (structlog set-up)
and ``app`` (build, start and stop the server).
"""
