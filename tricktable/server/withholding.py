"""The one rule of what is withheld from anyone without a table's owner token (docs/protocol.md, section 19).

Tables dealt from one creator-chosen seed are *twins*: they deal the same
cards, so what one shows tells what the others hold. A table is withheld
(its record, its spectating, its progress) while a twin of it is not over,
and, when its creator sealed it, until the seal lifts: for good, unless the
creator said how many tables it deals from the seed (:class:`DeckSet`, a
tournament's deck set); then once a table of every index has ended.

:func:`withheld` is that rule, on facts its callers gather: the lobby for
gRPC and the viewer's live tables and lobby, the tournament page for a
tournament's stored games. Nothing else decides it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass

#: Owner tokens a creator may choose (CreateTableRequest.owner_token): long enough not to be guessed.
MIN_OWNER_TOKEN = 32
MAX_OWNER_TOKEN = 256


@dataclass(frozen=True, slots=True)
class DeckSet:
    """A sealed table's place among the ``tables`` tables its creator deals from its seed."""

    tables: int
    index: int

    def check(self) -> str | None:
        """Why this deck set is not valid (a message naming the field as the protos do), or None."""
        if self.tables < 1:
            return f"deck_set.tables must be 1 or more, not {self.tables}"
        if not 0 <= self.index < self.tables:
            return f"deck_set.index must be 0 to {self.tables - 1}, not {self.index}"
        return None


def twin_key(seed: str) -> str:
    """What groups twins (tables dealt from ``seed``) without the seed itself: kept in the store beside the table.

    A digest, not the seed, so a column index over it holds no seed; the record keeps the seed anyway.
    """
    return hashlib.sha256(b"tricktable-twins\0" + seed.encode()).hexdigest()


def deck_set_over(deck_set: DeckSet, ended: Collection[int]) -> bool:
    """Whether a table of every index of ``deck_set`` has ended (``ended``: the indexes of those that have)."""
    return all(index in ended for index in range(deck_set.tables))


def withheld(*, open_twins: int, sealed: bool, deck_set: DeckSet | None, ended: Collection[int] | None) -> bool:
    """Whether a table is withheld from anyone without its owner token.

    ``open_twins``: other tables dealt from its seed that are not over;
    ``sealed``: its creator sealed it; ``deck_set``: its place among the
    tables dealt from its seed (None: sealed for good); ``ended``: the deck
    set's indexes of which a table has ended (None: not known yet, so the
    seal holds).
    """
    if open_twins:
        return True
    if not sealed:
        return False
    return deck_set is None or ended is None or not deck_set_over(deck_set, ended)
