"""A game as one object: everything Tricktable knows about a game, declared once, checked when it is loaded.

The engine (:class:`tricktable.rules.game.GameRules`) is what a match needs.
The rest of the project needs more of a game: how a searching bot reads a
seat's plays (its follow rule), how strong a card is and whether it is a
trump (the SDK's ranking helpers), which card an absent player gives up (the
default action), its fast path, the schema of its options (from which the
protocol's option conversion is derived and against which the proto and
docs/games.md are tested), and the bots' starting tuning. A
:class:`GameDefinition` holds all of it, so a game is one object found by
name in :mod:`tricktable.rules.registry`, and nothing else in the project keeps a
table of game names. Every field is required: a game that leaves one out
fails when it is constructed, never later by a quiet fallback.

docs/adding-a-game.md says how to write one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tricktable.rules.cards import Card, Suit
from tricktable.rules.errors import OptionsError
from tricktable.rules.fast import FastEngine
from tricktable.rules.game import GameRules, SeatView, Trick

#: How an option travels in the protocol's typed options (tricktable/v1/game.proto): a plain ``int32`` or
#: ``bool`` field, the ``DealPattern`` enum, or the ``BidValue`` rows of a bid table.
OPTION_KINDS: tuple[str, ...] = ("int", "bool", "deal_pattern", "bid_values")
#: A dotted module name (the heuristic a game names for the bots).
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")

#: A game's follow rule: would ``card`` have been legal in ``trick`` (before it) from a hand of ``card`` and ``other``?
FollowRule = Callable[[Trick, Card, Card], bool]


def known_trump(view: SeatView) -> Suit | None:
    """The deal's trump (None at no-trump), for the card functions of a definition.

    Raises:
        ValueError: before trump is known (bidding, begging): cards have no trick strength yet.
    """
    if view.trump is None and not view.no_trump:
        raise ValueError(f"{view.game}: no trump yet in deal {view.deal_number}, so cards have no trick strength")
    return view.trump


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One table option: its name (as the record and ``--option`` write it) and its kind (:data:`OPTION_KINDS`)."""

    name: str
    kind: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BotTuning:
    """What the reference bots start from in this game (each bot's own arguments override it).

    Plain data, so the rules stay below the bots: the bots resolve the names.
    """

    #: The module of :mod:`tricktable.bots.heuristic`'s strategy for this game: it exports ``choose_action(view)``.
    heuristic: str
    #: What ending the match as a winner is worth to a searching bot, in deal points (about two tricks' worth).
    win_bonus: float
    #: How a search bot plays out its worlds: a name of ``tricktable.bots.search.POLICIES``.
    playout: str
    #: Cards left in all hands from which a world's card play is solved exactly (``tricktable.bots.solver``); 0:
    #: never. Off in the four games: solving from 8 cards (two tricks of four players: about 12 nodes, 0.1 ms a
    #: solve) doubled the CPU of a decision and gained nothing against PIMC in Twenty-Five (49.6% [48.6, 50.6]
    #: of the points, 200 duplicate pairs); three tricks cost 7 times the CPU, a whole deal 28 ms a solve.
    solve_at: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GameDefinition:
    """One game, whole: its engine and everything the server, the SDK, the bots and the tools ask of it.

    Raises (on construction):
        OptionsError: an option schema that repeats a name or uses an unknown kind, or preset options
            (``short_options``, ``demo_options``) the game's own config refuses.
        ValueError: bot tuning out of range, or a heuristic that is not a module name.
    """

    #: The engine: options to config, a deal's first state, the end of the match.
    rules: GameRules
    #: Every option ``rules.config(...).to_options()`` writes, in the order the proto message declares them.
    options: tuple[OptionSpec, ...]
    #: The determinization hook: from a seat's view, the rule its plays obeyed (:mod:`tricktable.rules.determinize`).
    follow_rule: Callable[[SeatView], FollowRule]
    #: Whether a card is a trump in the view's deal (raises ValueError before trump is known).
    is_trump: Callable[[SeatView, Card], bool]
    #: How strongly a card contends for a trick (None: the card leads); 0 when it cannot win.
    strength: Callable[[SeatView, Card, Trick | None], int]
    #: The default action's sort key: lower is a weaker card to give up (:mod:`tricktable.rules.defaults`).
    lowness: Callable[[SeatView, Card], tuple[int, ...]]
    #: The fast path search bots simulate on, or None: then the searching bots refuse the game, saying so.
    fast: FastEngine | None
    #: The reference bots' starting tuning.
    bots: BotTuning
    #: Options of a short game that players choosing legal actions at random finish (the conformance suite's).
    short_options: Mapping[str, Any]
    #: ``tricktable demo`` without ``--bots``: the players' bot, and the options it adds to keep a game short.
    demo_bot: str
    demo_options: Mapping[str, Any]

    def __post_init__(self) -> None:
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise OptionsError(f"{self.name}: an option is declared twice in {names}")
        unknown = [o for o in self.options if o.kind not in OPTION_KINDS]
        if unknown:
            raise OptionsError(f"{self.name}: option kinds must be one of {', '.join(OPTION_KINDS)}, not {unknown}")
        self.rules.config(self.short_options)
        self.rules.config(self.demo_options)
        tuning = self.bots
        if not _MODULE_NAME.fullmatch(tuning.heuristic):
            raise ValueError(f"{self.name}: the heuristic must name a module, not {tuning.heuristic!r}")
        if tuning.solve_at < 0:
            raise ValueError(f"{self.name}: solve_at must be 0 (never) or more cards, not {tuning.solve_at}")

    @property
    def name(self) -> str:
        """The game's name, as records, the protocol and the command line write it (the engine's own)."""
        return self.rules.name

    def option_kinds(self) -> dict[str, str]:
        """Option name -> kind, in the schema's order."""
        return {o.name: o.kind for o in self.options}


__all__ = ["OPTION_KINDS", "BotTuning", "FollowRule", "GameDefinition", "OptionSpec", "known_trump"]
