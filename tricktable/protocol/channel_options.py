"""How a tricktable client channel attempts and retries its connection: the gRPC options every channel shares.

Why one home: the SDK's channels (bots, tournaments, the CLI) and a server's channels to its other processes
(shards, the directory's game processes) want the same thing: a peer that comes back after a restart is seen
within a second, and a connection attempt that is merely slow (a busy machine, a TLS handshake, a relay in
between) is not given up on.

gRPC core's names mislead here. ``grpc.min_reconnect_backoff_ms`` is not a backoff: it is the least time one
connection attempt is given (the attempt's deadline is the later of it and the next backoff delay). Set to
100 ms, an attempt whose TCP connect and HTTP/2 settings exchange took longer on a loaded machine failed with
"connection attempt timed out before receiving SETTINGS frame", and a client that counts its first failed
attempt as "no server there" (:func:`tricktable.client_sdk.runner.connect`) gave up on a server that was up.
"""

from __future__ import annotations

#: Seconds one connection attempt (TCP connect, TLS, the HTTP/2 settings exchange) may take before gRPC counts
#: it failed. A refused connection fails at once whatever this is; only a slow or silent peer waits this long.
CONNECT_ATTEMPT_SECONDS = 10.0

#: Milliseconds before the first retry of a failed connection attempt; the delay grows (x1.6, with jitter) to
#: :data:`MAX_RECONNECT_BACKOFF_MS`.
INITIAL_RECONNECT_BACKOFF_MS = 100

#: The most milliseconds between two connection attempts. gRPC's own grows to two minutes and answers the
#: attempts in between from a cached failure: a peer back after a restart would be seen long after a client's
#: patience ran out. Capped at a second, a channel notices a returning peer within one.
MAX_RECONNECT_BACKOFF_MS = 1_000

#: The options, as ``grpc.aio.insecure_channel(..., options=...)`` takes them.
RECONNECT_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.initial_reconnect_backoff_ms", INITIAL_RECONNECT_BACKOFF_MS),
    ("grpc.max_reconnect_backoff_ms", MAX_RECONNECT_BACKOFF_MS),
    ("grpc.min_reconnect_backoff_ms", int(CONNECT_ATTEMPT_SECONDS * 1000)),  # the least time of one attempt
)
