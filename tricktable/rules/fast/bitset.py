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

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Give each state class a clone written out slot by slot (the solver clones at every node).

        A loop of ``getattr``/``setattr`` over ``__slots__`` cost half of an
        exact solve's time; the unrolled copy is about three times cheaper.
        """
        super().__init_subclass__(**kwargs)
        slots: tuple[str, ...] = cls.__dict__.get("__slots__", ())
        if not slots:
            return
        copied = set(cls.COPIED)
        lines = [f"    o.{n} = s.{n}[:]" if n in copied else f"    o.{n} = s.{n}" for n in slots]
        source = "def clone(s):\n    o = new(cls)\n" + "\n".join(lines) + "\n    return o\n"
        namespace: dict[str, object] = {"new": object.__new__, "cls": cls}
        exec(source, namespace)  # generated from the class's own slot names only
        cls._clone = namespace["clone"]  # type: ignore[attr-defined]

    def clone(self) -> Self:
        """An independent copy (shares only the immutable tables, the deck source and the rng)."""
        return type(self)._clone(self)  # type: ignore[attr-defined, no-any-return]
