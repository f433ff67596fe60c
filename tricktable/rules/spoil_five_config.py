"""Table options of Twenty-Five and Forty-Five: one config, two presets (docs/games.md 1.1, 1.2, 1.5-1.7).

:class:`SpoilFiveConfig` holds both the table options (written out by
:meth:`SpoilFiveConfig.to_options`) and the game's fixed rules (which player
counts and sides exist, how scoring works). :data:`TWENTY_FIVE` and
:data:`FORTY_FIVE` are its two presets; :func:`resolve` validates a table's
options against a preset and returns the resolved config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from typing import Any

from tricktable.rules.cards import Card, standard_deck
from tricktable.rules.errors import OptionsError
from tricktable.rules.game import Seat


class DealPattern(StrEnum):
    """How the hands are dealt (docs/games.md 1.2): the option's value is the cards each seat gets per round."""

    THREE_TWO = "3-2"
    TWO_THREE = "2-3"


#: Option value -> cards per seat in the first and second round of the deal.
DEAL_PATTERNS: dict[str, tuple[int, int]] = {
    p.value: (int(p.value[0]), int(p.value[2])) for p in DealPattern
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SpoilFiveConfig:
    """A resolved Spoil Five family table: options plus the game's fixed rules.

    Option fields: ``players``, ``side_count`` (the option ``sides``),
    ``deal_pattern``, ``robbing``, ``trump_at_will``, ``target``,
    ``first_dealer``, ``jink``. Fixed fields (not options): ``layouts``
    (player count -> allowed side counts, default first), ``bonus_points``
    (Forty-Five's bonus for the highest trump), ``score_as_won`` (Twenty-Five
    scores each trick as it is won and stops at the target), ``has_jink``.
    """

    game: str
    players: int
    side_count: int
    deal_pattern: str = "3-2"
    robbing: bool = True
    trump_at_will: bool
    target: int
    first_dealer: Seat | None = None
    jink: bool = False
    layouts: tuple[tuple[int, tuple[int, ...]], ...]
    trick_points: int = 5
    bonus_points: int
    score_as_won: bool
    has_jink: bool

    @property
    def sides(self) -> tuple[tuple[Seat, ...], ...]:
        """Seats of each side: seat ``s`` is on side ``s mod side_count`` (docs/games.md 1.1)."""
        return _sides(self.players, self.side_count)

    def side_of(self, seat: Seat) -> int:
        """The side of ``seat``."""
        return seat % self.side_count

    @property
    def pattern(self) -> tuple[int, int]:
        """The deal pattern as card counts per round (3, 2) or (2, 3)."""
        return DEAL_PATTERNS[self.deal_pattern]

    def deck(self) -> tuple[Card, ...]:
        """The 52-card deck, no jokers (docs/games.md 1.2)."""
        return standard_deck()

    def to_options(self) -> dict[str, Any]:
        """Every option with its value, defaults written out (``jink`` for forty_five only)."""
        options: dict[str, Any] = {
            "players": self.players,
            "sides": self.side_count,
            "deal_pattern": self.deal_pattern,
            "robbing": self.robbing,
            "trump_at_will": self.trump_at_will,
            "target": self.target,
            "first_dealer": self.first_dealer,
        }
        if self.has_jink:
            options["jink"] = self.jink
        return options


#: Twenty-Five: 4 or 6 players; two sides (three of two possible with six); 5 a trick scored as won.
TWENTY_FIVE = SpoilFiveConfig(
    game="twenty_five", players=4, side_count=2, trump_at_will=False, target=25,
    layouts=((4, (2,)), (6, (2, 3))), bonus_points=0, score_as_won=True, has_jink=False,
)


def _forty_five_layouts() -> tuple[tuple[int, tuple[int, ...]], ...]:
    layouts = []
    for players in range(2, 11):
        divisors = [d for d in range(2, players + 1) if players % d == 0]
        default = 2 if players in (4, 6) else players
        layouts.append((players, (default, *(d for d in divisors if d != default))))
    return tuple(layouts)


#: Forty-Five: 2 to 10 players; partnerships with 4 and 6, otherwise everyone alone; bonus 5.
FORTY_FIVE = SpoilFiveConfig(
    game="forty_five", players=4, side_count=2, trump_at_will=True, target=45,
    layouts=_forty_five_layouts(), bonus_points=5, score_as_won=False, has_jink=True,
)

_INT_OPTIONS = ("players", "sides", "target")
_BOOL_OPTIONS = ("robbing", "trump_at_will", "jink")


def _describe_counts(counts: list[int]) -> str:
    if counts == list(range(counts[0], counts[-1] + 1)) and len(counts) > 2:
        return f"{counts[0]} to {counts[-1]}"
    return " or ".join(str(c) for c in counts)


def resolve(preset: SpoilFiveConfig, options: Mapping[str, Any]) -> SpoilFiveConfig:
    """Validate ``options`` against ``preset`` and resolve the defaults.

    Raises:
        OptionsError: an unknown option, a value of the wrong type (a boolean
            is not an integer), or an inconsistent value, e.g.
            ``forty_five: sides must divide players (7 players, sides 3)``.
    """
    game = preset.game
    known = set(preset.to_options())
    for key in options:
        if key == "jink" and not preset.has_jink:
            raise OptionsError(f"{game}: option 'jink' exists only in forty_five")
        if key not in known:
            raise OptionsError(f"{game}: unknown option {key!r} (options: {', '.join(sorted(known))})")
    for key in _INT_OPTIONS:
        value = options.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise OptionsError(f"{game}: option {key!r} must be an integer, not {value!r}")
    for key in _BOOL_OPTIONS:
        value = options.get(key)
        if key in options and not isinstance(value, bool):
            raise OptionsError(f"{game}: option {key!r} must be true or false, not {value!r}")
    layouts = dict(preset.layouts)
    players = options.get("players", preset.players)
    if players not in layouts:
        raise OptionsError(f"{game}: players must be {_describe_counts(sorted(layouts))}, not {players}")
    allowed = layouts[players]
    sides = options.get("sides")
    if sides is None:
        sides = allowed[0]
    elif sides not in allowed:
        divisors = [d for d in range(2, players + 1) if players % d == 0]
        if set(divisors) <= set(allowed):
            # Any divisor from 2 up is allowed (forty_five): say which rule was broken.
            rule = "be at least 2" if sides < 2 else "divide players"
            raise OptionsError(f"{game}: sides must {rule} ({players} players, sides {sides})")
        raise OptionsError(
            f"{game}: sides must be {_describe_counts(sorted(allowed))} with {players} players, not {sides}"
        )
    pattern = options.get("deal_pattern", preset.deal_pattern)
    if not isinstance(pattern, str) or pattern not in DEAL_PATTERNS:
        raise OptionsError(f"{game}: deal_pattern must be {' or '.join(map(repr, DEAL_PATTERNS))}, not {pattern!r}")
    target = options.get("target")
    if target is None:
        target = preset.target
    if target < 1:
        raise OptionsError(f"{game}: target must be at least 1, not {target}")
    first_dealer = options.get("first_dealer")
    if first_dealer is not None and (
        not isinstance(first_dealer, int) or isinstance(first_dealer, bool) or not 0 <= first_dealer < players
    ):
        raise OptionsError(
            f"{game}: first_dealer must be a seat 0 to {players - 1} or null, not {first_dealer!r}"
        )
    return replace(
        preset,
        players=players,
        side_count=sides,
        deal_pattern=pattern,
        robbing=options.get("robbing", preset.robbing),
        trump_at_will=options.get("trump_at_will", preset.trump_at_will),
        target=target,
        first_dealer=first_dealer,
        jink=options.get("jink", preset.jink),
    )


@cache
def _sides(players: int, side_count: int) -> tuple[tuple[Seat, ...], ...]:
    """The sides of a table, built once per shape (every view lists them)."""
    return tuple(tuple(range(k, players, side_count)) for k in range(side_count))
