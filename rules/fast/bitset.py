"""What every fast path shares: hands as bit sets of card indexes, and where decks come from."""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: The deck (card indexes, top first) of the ``i``-th deal, or None to shuffle one from the state's rng.
DeckSource = Callable[[int], Sequence[int] | None]


def bits(mask: int) -> list[int]:
    """The card indexes in a bit set, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
