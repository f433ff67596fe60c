"""The trailing metadata a refused call carries beside its status: the keys the server writes and a client reads.

Why one home in the protocol package: the server (:mod:`tricktable.server.errors`,
:mod:`tricktable.server.call_rate`) writes them and the SDK
(:mod:`tricktable.client_sdk.errors`) reads them; neither may import the other.
docs/protocol.md, sections 15 and 19, describe them to clients.
"""

from __future__ import annotations

#: A refusal's machine-readable reason (``RATE_LIMITED``, ``STORAGE_UNAVAILABLE``, ...), for a client to branch on.
REASON_KEY = "tricktable-reason"
#: The reason of a unary call refused because its client called faster than its budget.
RATE_LIMITED = "RATE_LIMITED"
#: Milliseconds until a rate-limited client's next call would be let in.
RETRY_AFTER_KEY = "tricktable-retry-after-ms"
#: gRPC's own pushback trailer (the same milliseconds): a channel whose retry policy lists RESOURCE_EXHAUSTED obeys it.
PUSHBACK_KEY = "grpc-retry-pushback-ms"
