"""Actions: the decisions a seat makes, as frozen values.

Names follow docs/records.md's action ``type`` column: an action's record form
(:func:`tricktable.rules.record.action_to_json`) is ``{"type": "play", "card": "5H"}``. The acting seat is not part of
the action; the state knows whose turn it is and the record stores the seat
beside it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from math import comb
from typing import Any, ClassVar

from tricktable.rules.cards import SUITS, Card, Suit, codes
from tricktable.rules.errors import ErrorCode, RuleError


class Denomination(StrEnum):
    """A Cinq Cents bid's denomination, in the record's notation, low to high."""

    SPADES = "S"
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    NO_TRUMP = "NT"

    @property
    def order(self) -> int:
        """Rank among denominations: spades 0 < clubs < diamonds < hearts < no-trump 4."""
        return _DENOMINATION_ORDER[self]

    @property
    def suit(self) -> Suit | None:
        """The trump suit, or ``None`` at no-trump."""
        return None if self is Denomination.NO_TRUMP else Suit(self.value)


_DENOMINATION_ORDER = {d: i for i, d in enumerate(Denomination)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Play:
    """Play ``card`` to the current trick; ``suit`` only when leading a joker at no-trump."""

    type: ClassVar[str] = "play"
    card: Card
    suit: Suit | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Rob:
    """Take the turn-up and bury ``card`` from the hand as dealt (Spoil Five family)."""

    type: ClassVar[str] = "rob"
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class PassRob:
    """The dealer, with an ace of trumps turned up, declines to rob."""

    type: ClassVar[str] = "pass_rob"


@dataclass(frozen=True, slots=True, kw_only=True)
class Jink:
    """Forty-Five with ``jink``: declare that the side will take all five tricks."""

    type: ClassVar[str] = "jink"


@dataclass(frozen=True, slots=True, kw_only=True)
class PassJink:
    """Forty-Five with ``jink``: do not declare."""

    type: ClassVar[str] = "pass_jink"


@dataclass(frozen=True, slots=True, kw_only=True)
class Stand:
    """All Fives: eldest hand accepts the proposed trump."""

    type: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True, kw_only=True)
class Beg:
    """All Fives: eldest hand asks for another trump."""

    type: ClassVar[str] = "beg"


@dataclass(frozen=True, slots=True, kw_only=True)
class Gift:
    """All Fives: the dealer gives eldest hand one point and the trump stays."""

    type: ClassVar[str] = "gift"


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """All Fives: the dealer runs the pack.

    A seat chooses ``Run()``; the cards it turned (``exposed``) are a result
    the rules compute from the deck, filled in when the action is recorded.
    Checking compares ``exposed`` only when it is given (record replay).
    """

    type: ClassVar[str] = "run"
    exposed: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Bid:
    """Cinq Cents: bid ``tricks`` (6-10) in ``denomination``."""

    type: ClassVar[str] = "bid"
    tricks: int
    denomination: Denomination


@dataclass(frozen=True, slots=True, kw_only=True)
class Pass:
    """Cinq Cents: no bid."""

    type: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True, kw_only=True)
class Discard:
    """Cinq Cents: the declarer's six discards after taking the kitty (order carries no meaning)."""

    type: ClassVar[str] = "discard"
    cards: tuple[Card, ...]


Action = Play | Rob | PassRob | Jink | PassJink | Stand | Beg | Gift | Run | Bid | Pass | Discard

#: Every action class, in the order ``legal_actions()`` sorts them.
ACTION_CLASSES: tuple[type[Action], ...] = (
    Play, Rob, PassRob, Jink, PassJink, Stand, Beg, Gift, Run, Bid, Pass, Discard
)


def require_action(action: object) -> None:
    """Refuse (``MALFORMED_ACTION``) anything that is not one of :data:`ACTION_CLASSES`.

    Every deal's ``check`` starts here, so a wrong value (a bot's
    ``AnnotatedAction``, an action id string) is refused with a message
    saying what was passed, not an ``AttributeError`` from deep inside a rule.
    """
    if not isinstance(action, ACTION_CLASSES):
        unwrap = "; pass its .action" if hasattr(action, "action") else ""
        raise RuleError(ErrorCode.MALFORMED_ACTION, f"not an action (got {type(action).__name__}{unwrap})")


def as_decided(action: Action) -> Action:
    """The action as the seat chose it: a recorded run without the cards it turned.

    A recorded ``run`` writes the cards it exposed, a result the rules compute
    from the deck (see :class:`Run`); replaying a record, analysing it or
    comparing it with a bot's choice starts from the decision itself.
    """
    return Run() if isinstance(action, Run) else action


def _play_key(action: Play) -> tuple[int, ...]:
    return (action.card.index, -1 if action.suit is None else SUITS.index(action.suit))


def _rob_key(action: Rob) -> tuple[int, ...]:
    return (action.card.index,)


def _bid_key(action: Bid) -> tuple[int, ...]:
    return (action.tricks, action.denomination.order)


def _discard_key(action: Discard) -> tuple[int, ...]:
    return tuple(sorted(c.index for c in action.cards))


#: How actions of one kind order among themselves; a kind not listed has a single action (``pass``, ``stand``...).
_FIELD_KEYS: dict[type[Action], Callable[[Any], tuple[int, ...]]] = {
    Play: _play_key, Rob: _rob_key, Bid: _bid_key, Discard: _discard_key,
}
#: Per action class: its rank in :data:`ACTION_CLASSES` and how its own fields order.
_SORT_KEYS: dict[type[Action], tuple[int, Callable[[Any], tuple[int, ...]] | None]] = {
    cls: (i, _FIELD_KEYS.get(cls)) for i, cls in enumerate(ACTION_CLASSES)
}


def action_sort_key(action: Action) -> tuple[int, ...]:
    """Deterministic order for ``legal_actions()``: by kind (:data:`ACTION_CLASSES`), then by card or bid."""
    head, fields = _SORT_KEYS[type(action)]
    return (head,) if fields is None else (head, *fields(action))


def discards_of(cards: Iterable[Card], count: int) -> list[Discard]:
    """Every discard of ``count`` distinct cards among ``cards``, in ``action_sort_key`` order.

    The one expansion of a "choose ``count`` of these cards" decision: the
    Cinq Cents engine lists its C(16, 6) legal discards with it, and a client
    that received the compact form (protocol ``DiscardChoice``) rebuilds the
    same list with it.
    """
    return [Discard(cards=combo) for combo in itertools.combinations(sorted(set(cards)), count)]


def discard_choice(actions: Sequence[Action]) -> tuple[tuple[Card, ...], int] | None:
    """``(cards, count)`` when ``actions`` are exactly ``discards_of(cards, count)``, else None.

    The inverse of :func:`discards_of`: it lets the wire offer a discard as
    "choose 6 of these 16 cards" (a few hundred bytes) instead of 8008
    actions. Exact by counting: distinct subsets of size ``count`` of
    ``cards`` that number C(len(cards), count) are all of them.
    """
    if not actions or not all(isinstance(a, Discard) for a in actions):
        return None
    discards = [a for a in actions if isinstance(a, Discard)]
    count = len(discards[0].cards)
    if any(len(d.cards) != count or len(set(d.cards)) != count for d in discards):
        return None
    cards = tuple(sorted({c for d in discards for c in d.cards}))
    if len(set(discards)) != len(discards) or comb(len(cards), count) != len(discards):
        return None
    return cards, count


def describe(action: Action) -> str:
    """A short readable name for an action ("play 5H", "bid 7 NT", "rob, bury 2C")."""
    if isinstance(action, Play):
        return f"play {action.card.code}" + (f" naming {action.suit.value}" if action.suit else "")
    if isinstance(action, Rob):
        return f"rob, bury {action.card.code}"
    if isinstance(action, Bid):
        return f"bid {action.tricks} {action.denomination.value}"
    if isinstance(action, Discard):
        return "discard " + " ".join(codes(action.cards))
    if isinstance(action, Run) and action.exposed:
        return "run, exposing " + " ".join(codes(action.exposed))
    return action.type.replace("_", " ")
