"""What every fast path shares: hands as bit sets of card indexes, and where decks come from."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Self

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


class FastMatch:
    """What every fast match state shares: legality by listing, and a clone that copies only what moves.

    Subclasses define ``__slots__``, ``legal_actions()`` and ``COPIED``.
    """

    __slots__ = ()
    #: The mutable lists a clone copies; every other slot is immutable or shared on purpose (tables, decks, rng).
    COPIED: ClassVar[tuple[str, ...]] = ()

    def legal_actions(self) -> list[int]:
        """The legal action codes for ``to_act`` now."""
        raise NotImplementedError

    def is_legal(self, action: int) -> bool:
        """True when ``action`` is legal for ``to_act`` now."""
        return action in self.legal_actions()

    def clone(self) -> Self:
        """An independent copy (shares only the immutable tables, the deck source and the rng)."""
        cls = type(self)
        other = cls.__new__(cls)
        slots: tuple[str, ...] = cls.__slots__
        for name in slots:
            setattr(other, name, getattr(self, name))
        for name in cls.COPIED:
            setattr(other, name, list(getattr(self, name)))
        return other
