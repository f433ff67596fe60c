"""The authoritative Tricktable game server (grpc.aio).

Modules, each named for its job: ``tables`` (one authoritative table),
``clocks`` (decision limits, time banks, default action), ``seats`` (join
tokens and seat presence), ``lobby`` (the set of tables, seek, limits),
``storage`` (SQLite records), ``errors`` (domain errors and their status
codes), ``service`` (the thin gRPC servicer), ``interceptors``, ``app``.
"""
