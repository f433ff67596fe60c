"""Decks from a seed: the one place randomness enters, as an explicit input.

The rules never shuffle on their own. A :class:`DeckSource` hands the match
the deck of each deal in turn: :class:`SeededDecks` derives them from a seed
string (the server's and ``selfplay``'s source), :class:`RecordedDecks`
replays the decks of a record. The derivation uses SHA-256 and a private
``random.Random`` instance, never the global generator, so the same seed and
options give the same decks on every machine and Python version >= 3.11.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Protocol

from tricktable.rules.cards import Card


class DeckSource(Protocol):
    """Gives the shuffled deck (top card first) for the ``index``-th deal of a match (0-based, redeals counted)."""

    def deck(self, index: int, cards: Sequence[Card]) -> tuple[Card, ...]: ...


def _rng(seed: str, purpose: str) -> random.Random:
    digest = hashlib.sha256(f"tricktable/1|{purpose}|{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


class SeededDecks:
    """Decks derived from a seed string: deal ``i`` shuffles the game's deck with its own generator."""

    def __init__(self, seed: str) -> None:
        self.seed = seed

    def deck(self, index: int, cards: Sequence[Card]) -> tuple[Card, ...]:
        ordered = sorted(cards, key=lambda c: c.index)
        _rng(self.seed, f"deck|{index}").shuffle(ordered)
        return tuple(ordered)


class RecordedDecks:
    """The decks of a record, in order; asking past the last one is an error."""

    def __init__(self, decks: Sequence[Sequence[Card]]) -> None:
        self.decks = [tuple(d) for d in decks]

    def deck(self, index: int, cards: Sequence[Card]) -> tuple[Card, ...]:
        if index >= len(self.decks):
            raise IndexError(f"the record holds {len(self.decks)} decks; deal {index + 1} has none")
        return self.decks[index]


def draw_first_dealer(seed: str, players: int) -> int:
    """The first dealer drawn from the seed when the ``first_dealer`` option is unset (docs/games.md, common rules)."""
    return _rng(seed, "first_dealer").randrange(players)


def seed_commitment(seed: str, salt: str) -> str:
    """A table's commitment to its seed: SHA-256 (hex) of ``salt + seed``, UTF-8.

    Published when the table is created; ``salt`` (fresh server randomness)
    and ``seed`` are revealed together in the record, so anyone can check the
    decks were fixed before the first deal. Why the salt: an unsalted hash of
    a short seed chosen by a person is reversed by trying candidates, and
    tables dealt from one seed (duplicate deals) would share one hash.
    """
    return hashlib.sha256((salt + seed).encode()).hexdigest()
