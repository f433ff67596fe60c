"""Signed forwarded calls: only a process holding the server's forwarding secret may speak as a lobby.

A call one process forwards to another (a lobby to a game process, a shard
to a shard) carries the ``tricktable-hop`` metadata, and the receiver treats
it as the forwarder's, not a client's: it answers it itself instead of
placing or forwarding it (CreateTable creates the table here, ListTables
lists only its own), and limits it by seat token only, since the forwarder
limited its client's connection already. A client that could send that
metadata itself would skip both, so its value is signed:

    v1.<unix milliseconds>.<hex HMAC-SHA256(secret, "v1\n<method>\n<unix milliseconds>\n<client>")>

beside ``tricktable-forwarded-for: <client>``, the address of the client
whose call it is (what per-client limits count, where the call arrived).
The method is the call's full gRPC path, so a signature made for one call
can not be reused for another, nor for another client; the timestamp bounds a replay to
:data:`MAX_SKEW_SECONDS` either way (the processes' clocks must agree that
closely: NTP does). Without a valid signature the call is refused before it
does anything: ``UNAUTHENTICATED`` with the trailing metadata
``tricktable-reason: FORWARDING_UNAUTHENTICATED``. A server without a secret
(one process) takes no forwarded call at all.

The secret is read from a file (``serve --forwarding-secret-file``, a mounted
Kubernetes Secret), never from the command line, which every local user can
read. ``serve --shards N`` makes one of its own for its shards.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import grpc

from tricktable.server.errors import ForwardingRefusedError

#: The metadata key of a forwarded call.
HOP_KEY = "tricktable-hop"
#: The metadata key of the client a forwarded call is for (signed with it).
CLIENT_KEY = "tricktable-forwarded-for"
#: What a signature begins with: the scheme's version (a new scheme gets a new one).
VERSION = "v1"
#: How far a forwarded call's timestamp may be from the receiver's clock, either way.
MAX_SKEW_SECONDS = 60.0
#: The shortest secret taken (bytes, after surrounding whitespace is stripped): a signature is no stronger.
MIN_SECRET_BYTES = 32
#: The environment variable ``serve`` reads the secret file's path from when the flag is not given.
ENV_SECRET_FILE = "TRICKTABLE_FORWARDING_SECRET_FILE"


def read_secret(path: Path) -> bytes:
    """The secret in ``path`` (surrounding whitespace stripped: a file written by ``echo`` ends in a newline).

    Raises:
        ValueError: the file can not be read, or holds fewer than :data:`MIN_SECRET_BYTES` bytes.
    """
    try:
        secret = path.read_bytes().strip()
    except OSError as error:
        raise ValueError(f"the forwarding secret file {path} can not be read ({error.strerror})") from None
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(f"the forwarding secret in {path} has {len(secret)} bytes; it needs at least "
                         f"{MIN_SECRET_BYTES} (e.g. openssl rand -hex 32)")
    return secret


def new_secret() -> bytes:
    """A fresh random secret, for processes that share it in memory (``serve --shards``)."""
    return secrets.token_hex(MIN_SECRET_BYTES).encode()


def _mac(secret: bytes, method: str, stamp: str, client: str) -> str:
    return hmac.new(secret, f"{VERSION}\n{method}\n{stamp}\n{client}".encode(), hashlib.sha256).hexdigest()


class Forwarding:
    """Signs the calls this process forwards and checks those it receives (``secret`` None: it takes none)."""

    def __init__(self, secret: bytes | None, *, clock: Callable[[], float] = time.time) -> None:
        self._secret = secret
        self._clock = clock

    def metadata(self, method: str, client: str = "") -> tuple[tuple[str, str], ...]:
        """The metadata of a call to ``method`` (its full path, ``/tricktable.v1.TableService/GetTable``) made for
        ``client`` (its address where the call arrived; empty: this process's own call).

        Raises:
            RuntimeError: this process has no secret (it is not one of several).
        """
        if self._secret is None:
            raise RuntimeError("a server without a forwarding secret forwards no call")
        stamp = str(round(self._clock() * 1000))
        return ((HOP_KEY, f"{VERSION}.{stamp}.{_mac(self._secret, method, stamp, client)}"), (CLIENT_KEY, client))

    def check(self, method: str, value: str, client: str = "") -> None:
        """Pass when ``value`` is a valid signature of a call to ``method`` for ``client`` made within the skew.

        Raises:
            ForwardingRefusedError: no secret here, or the signature is malformed, stale or wrong.
        """
        if self._secret is None:
            raise ForwardingRefusedError("this server takes no forwarded calls: it is not one of several processes")
        version, _, rest = value.partition(".")
        stamp, _, mac = rest.partition(".")
        if version != VERSION or not stamp.isdigit() or not mac:
            raise ForwardingRefusedError("a forwarded call's signature must be v1.<unix ms>.<hmac>")
        if abs(self._clock() - int(stamp) / 1000) > MAX_SKEW_SECONDS:
            raise ForwardingRefusedError(f"a forwarded call's signature is more than {MAX_SKEW_SECONDS:g} s "
                                         "from this server's clock (replayed, or the clocks disagree)")
        if not hmac.compare_digest(mac, _mac(self._secret, method, stamp, client)):
            raise ForwardingRefusedError("a forwarded call's signature does not match: "
                                         "the processes must share one forwarding secret")


def hop_value(metadata: Iterable[tuple[str, str | bytes]] | None, key: str = HOP_KEY) -> str | None:
    """The ``tricktable-hop`` value (or ``key``'s) of a call's invocation metadata; None when it is not there."""
    for found, value in metadata or ():
        if found == key:
            return value if isinstance(value, str) else value.decode("latin-1")
    return None


def forwarded_for(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The client a forwarded call is for (its signature was checked on arrival), or None when not forwarded."""
    metadata = context.invocation_metadata()
    if hop_value(metadata) is None:
        return None
    return hop_value(metadata, CLIENT_KEY) or ""


def forwarded(context: grpc.aio.ServicerContext[Any, Any]) -> bool:
    """Whether the call was forwarded by another process (its signature was checked on arrival)."""
    return hop_value(context.invocation_metadata()) is not None
