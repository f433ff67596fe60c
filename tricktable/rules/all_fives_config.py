"""All Fives table options (docs/games.md 2.1 and the common rules): a frozen, keyword-only config.

Options: ``players`` 2 (default) or 3, each alone; ``target`` 61; and
``first_dealer`` (a seat, or None to draw it from the seed). Unknown keys,
wrong types (a bool is not a number) and bad values are refused with
:class:`tricktable.rules.errors.OptionsError` naming the game and the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tricktable.rules.cards import Card, standard_deck
from tricktable.rules.errors import OptionsError
from tricktable.rules.game import Seat

GAME = "all_fives"


def _options_error(message: str) -> OptionsError:
    return OptionsError(f"{GAME}: {message}")


def _is_int(value: object) -> bool:
    # bool is a subclass of int, but a flag is not a number in a record (docs/records.md: typed strictly).
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True, kw_only=True)
class AllFivesConfig:
    """All Fives table options, validated (docs/games.md 2.1 and common rules).

    Build it with :meth:`from_options`, which refuses unknown keys, wrong
    types and bad values with :class:`OptionsError`.
    """

    players: int = 2
    target: int = 61
    first_dealer: Seat | None = None

    def __post_init__(self) -> None:
        if not _is_int(self.players) or self.players not in (2, 3):
            raise _options_error(f"players must be 2 or 3 (got {self.players!r})")
        if not _is_int(self.target) or self.target < 1:
            raise _options_error(f"target must be a positive integer (got {self.target!r})")
        if self.first_dealer is not None and (
            not _is_int(self.first_dealer) or not 0 <= self.first_dealer < self.players
        ):
            raise _options_error(
                f"first_dealer must be a seat from 0 to {self.players - 1} or null (got {self.first_dealer!r})"
            )

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> AllFivesConfig:
        """Validate a table's options and resolve the defaults.

        Raises:
            OptionsError: an unknown key, a wrong type or a bad value, named in the message.
        """
        if not isinstance(options, Mapping):
            raise _options_error(f"options must be a mapping, not {options!r}")
        unknown = sorted(str(k) for k in options if k not in _OPTION_NAMES)
        if unknown:
            raise _options_error(
                f"unknown option(s) {', '.join(unknown)} (options: {', '.join(_OPTION_NAMES)})"
            )
        return cls(**dict(options))

    @property
    def game(self) -> str:
        """The game name, ``all_fives``."""
        return GAME

    @property
    def sides(self) -> tuple[tuple[Seat, ...], ...]:
        """Every player alone: side ``k`` is seat ``k`` (docs/games.md 2.1)."""
        return tuple((s,) for s in range(self.players))

    def to_options(self) -> dict[str, Any]:
        """Every option with its value, as the record writes them."""
        return {"players": self.players, "target": self.target, "first_dealer": self.first_dealer}

    def deck(self) -> tuple[Card, ...]:
        """The 52-card deck (docs/games.md 2.1)."""
        return standard_deck()


_OPTION_NAMES = ("players", "target", "first_dealer")
