"""Join tokens and seat presence.

A join token is a 32-byte ``secrets.token_urlsafe`` string bound to one seat
of one table; it is the only credential a seat has, and it acts only for
that seat. The server keeps only its SHA-256 digest (:func:`token_digest`),
in memory and in the journal, so a restarted server knows the seats' tokens
without a copy of them existing anywhere but at the seats.

A seat keeps its place while disconnected for the table's grace period;
after it the seat is *away* and the default action plays for it until it
comes back with its token.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from dataclasses import dataclass, field

from tricktable.rules.game import Seat
from tricktable.server.errors import BadTokenError

TOKEN_BYTES = 32
MAX_NAME = 64


def new_token() -> str:
    """An unguessable join token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    """What the server keeps of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(name: str, default: str) -> str:
    """A seat name fit for logs and records: printable, at most 64 characters, else ``default``."""
    kept = "".join(ch for ch in name if ch.isprintable()).strip()[:MAX_NAME]
    return kept or default


@dataclass(slots=True)
class SeatState:
    """One seat of a table: who sits there, whether connected, and its counters for the record."""

    seat: Seat
    name: str
    #: The seat's token as the server keeps it (:func:`token_digest`).
    token_digest: str
    joined: bool = False
    connections: int = 0
    away: bool = False
    timeouts: int = 0
    rejected: int = 0
    disconnects: int = 0
    defaults: int = 0
    #: Timeouts since the seat last answered: at ``clocks.AWAY_AFTER_TIMEOUTS`` the seat is away.
    timeouts_in_a_row: int = 0
    grace: asyncio.TimerHandle | None = field(default=None, repr=False)

    @property
    def connected(self) -> bool:
        """At least one stream of this seat is open."""
        return self.connections > 0

    def counters(self) -> dict[str, int]:
        """The per-seat counters the record stores beside the seat's name."""
        return {"timeouts": self.timeouts, "rejected": self.rejected, "disconnects": self.disconnects,
                "default_actions": self.defaults}


class TokenBook:
    """Token digest -> (table id, seat), for every table that is still open."""

    def __init__(self, prefix: str = "") -> None:
        #: What every token begins with: a sharded server's shard (:mod:`tricktable.server.shard_ids`).
        self.prefix = prefix
        self._seats: dict[str, tuple[str, Seat]] = {}

    def issue(self, table_id: str, seat: Seat) -> str:
        """A fresh token for ``seat`` of ``table_id`` (only its digest is kept)."""
        token = self.prefix + new_token()
        self.restore(table_id, seat, token_digest(token))
        return token

    def restore(self, table_id: str, seat: Seat, digest: str) -> None:
        """Bind the token with ``digest`` to ``seat`` of ``table_id`` again (a table resumed from the journal)."""
        self._seats[digest] = (table_id, seat)

    def resolve(self, token: str) -> tuple[str, Seat]:
        """The table and seat of ``token``.

        Raises:
            BadTokenError: unknown token, or its table is closed.
        """
        if not token:
            raise BadTokenError("a join token is required")
        found = self._seats.get(token_digest(token))
        if found is None:
            raise BadTokenError("unknown join token (wrong token, or its table is over)")
        return found

    def revoke(self, digests: list[str]) -> None:
        """Forget the tokens (by digest) of a table that is over."""
        for digest in digests:
            self._seats.pop(digest, None)

    def __len__(self) -> int:
        return len(self._seats)
