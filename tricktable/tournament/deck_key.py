"""The deck key's commitment and reveal: how anyone checks afterwards that the decks were not chosen.

Every deck set's seed is an HMAC of its public id under the tournament's
secret deck key (:func:`tricktable.tournament.schedule.deck_seed`). The key
stays secret while the tournament runs, so no entrant can compute a deck
before it is dealt; but a secret key alone would let the organiser change it
(and so the decks) mid-way unseen. So, when the tournament begins, it
publishes a *commitment*: SHA-256 of the netstrings (``LEN:BYTES,``, UTF-8) of

    tricktable-deck-key/1, the tournament's name, its config seed, the salt, the key

where the salt is fresh randomness (64 hex digits). Once every table of the
tournament has ended, the key and the salt are revealed beside it: anyone
can then hash them, compare with the commitment seen at the start, and
derive every deck set's seed (``tricktable verify EXPORT_FOLDER``).

Why netstrings: each field carries its length, so no two different
(name, seed, salt, key) read as the same bytes. Why a secret salt: a key set
by a person (``TRICKTABLE_DECK_KEY``) may be guessable, and an unsalted hash
published at the start could be reversed by trying candidates. Why the name
and seed: the seed names the deck sets (``<seed>/r<round>/d<deck set>``), so
the commitment fixes the decks, not just the key.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: The scheme's name: the first field of the committed message, and ``deck_key.scheme`` in the exports.
SCHEME = "tricktable-deck-key/1"
#: Bytes of randomness in a commitment's salt (64 hex digits).
SALT_BYTES = 32
_SALT = re.compile(rf"[0-9a-f]{{{2 * SALT_BYTES}}}")


def draw_salt() -> str:
    """A fresh salt (hex), drawn once when a tournament begins."""
    return secrets.token_hex(SALT_BYTES)


def _netstring(text: str) -> bytes:
    data = text.encode("utf-8")
    return str(len(data)).encode() + b":" + data + b","


def commitment(*, tournament: str, seed: str, salt: str, key: str) -> str:
    """The commitment (SHA-256, hex) to ``key`` for the tournament ``tournament`` of config seed ``seed``."""
    message = b"".join(_netstring(field) for field in (SCHEME, tournament, seed, salt, key))
    return hashlib.sha256(message).hexdigest()


def opens(committed: str, *, tournament: str, seed: str, salt: str, key: str) -> bool:
    """Whether ``key`` and ``salt`` open ``committed``.

    A salt of another form than :func:`draw_salt`'s (64 hex digits) never does: a tournament draws
    nothing else, so any other salt is not the one it committed with.
    """
    if not _SALT.fullmatch(salt):
        return False
    return hmac.compare_digest(commitment(tournament=tournament, seed=seed, salt=salt, key=key), committed)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckKeyDisclosure:
    """What a tournament shows of its deck key: the commitment always, the key and salt once it has ended.

    ``commitment`` is None for a tournament begun by a version that published none (nothing to
    check the key against).
    """

    commitment: str | None
    key: str | None = None
    salt: str | None = None

    @property
    def revealed(self) -> bool:
        """Whether the key and the salt are shown."""
        return self.key is not None and self.salt is not None

    def to_json(self) -> dict[str, Any]:
        """``deck_key`` of the tournament page and of ``summary.json``."""
        return {"scheme": SCHEME, "commitment": self.commitment, "key": self.key, "salt": self.salt}

    @classmethod
    def from_json(cls, data: object) -> DeckKeyDisclosure:
        """The disclosure of an export's ``summary.json``.

        Raises:
            ValueError: not one this version reads (another scheme, or fields that are not strings).
        """
        if not isinstance(data, Mapping):
            raise ValueError("no deck_key in summary.json (exported by a version that published no commitment)")
        if data.get("scheme") != SCHEME:
            raise ValueError(f"deck_key.scheme is {data.get('scheme')!r}, not {SCHEME!r}")
        return cls(commitment=_text(data, "commitment"), key=_text(data, "key"), salt=_text(data, "salt"))


def _text(data: Mapping[Any, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"deck_key.{name} is not a string")
    return value
