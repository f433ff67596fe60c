"""Twenty-Five and Forty-Five as definitions: the Spoil Five family's engine with everything else it knows.

Both games rank cards by the family's tables (docs/games.md 1.3) and follow
by its rule (1.5: trumps may always be played, the top trumps may renege
unless led to by a higher one, ``trump_at_will`` lets a seat trump when it
could follow), so one set of functions serves both; the definitions differ in
their engine, their options (Forty-Five's ``jink``) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable

from tricktable.rules.cards import Card
from tricktable.rules.definition import BotTuning, FollowRule, GameDefinition, OptionSpec, known_trump
from tricktable.rules.fast.codec import SPOIL_FIVE_ENGINE
from tricktable.rules.game import GameRules, SeatView, Trick
from tricktable.rules.spoil_five import RULES
from tricktable.rules.spoil_five_ranking import RANKINGS, Ranking, playable


def _ranking(view: SeatView) -> Ranking:
    """The family's ranking for the deal's trump (there is always one, the turn-up's suit, once dealt)."""
    trump = known_trump(view)
    if trump is None:
        raise ValueError(f"{view.game}: a Spoil Five deal is never at no-trump")
    return RANKINGS[trump]


def is_trump(view: SeatView, card: Card) -> bool:
    """The family's trumps: the trump suit and the A of hearts."""
    return _ranking(view).is_trump(card)


def strength(view: SeatView, card: Card, trick: Trick | None) -> int:
    """The family's ranking against the card led (``card`` itself on an empty trick)."""
    led = trick.cards[0] if trick is not None and trick.cards else card
    return _ranking(view).strength(card, led)


def lowness(view: SeatView, card: Card) -> tuple[int, int, int]:
    """Not trump before trump, each by the family's rank, then the card index (the default action's order)."""
    trump = view.trump
    if trump is None:
        return (0, card.rank, card.index)
    ranking = RANKINGS[trump]
    trump_rank = ranking.trump_rank[card.index]
    return (1, trump_rank, card.index) if trump_rank else (0, ranking.plain_rank[card.index], card.index)


def _follow_rule(rules: GameRules) -> Callable[[SeatView], FollowRule]:
    """The follow rule of one game of the family: its ranking and its ``trump_at_will`` option."""

    def follow_rule(view: SeatView) -> FollowRule:
        if view.trump is None:
            raise ValueError("a Spoil Five view shows the trump from the deal on: this one has none")
        ranking = RANKINGS[view.trump]
        at_will = bool(rules.config(view.options).to_options()["trump_at_will"])
        return lambda trick, card, other: card in playable(ranking, (card, other), trick.cards[0],
                                                           trump_at_will=at_will)
    return follow_rule


_COMMON_OPTIONS = (
    OptionSpec("players", "int"), OptionSpec("sides", "int"), OptionSpec("deal_pattern", "deal_pattern"),
    OptionSpec("robbing", "bool"), OptionSpec("trump_at_will", "bool"), OptionSpec("target", "int"),
)
#: The search bot's card decisions: against plain PIMC, 30 worlds, on the same duplicate pairs, the ensemble of a
#: greedy and a random playout took more points of share than greedy playouts alone in both games: Twenty-Five
#: +0.62 [+0.25, +0.98] on 2,000 pairs (seed ``tf5``: 50.9% of the points, 51.9% of the games), Forty-Five +0.48
#: [+0.06, +0.90] on 1,000 (seed ``ff6``: 51.2% of the points, 53.0% of the games), at about 1.3 times the CPU a
#: decision. Not tried in All Fives and Cinq Cents, whose points are in the cards taken (they play out greedily).
_TUNING = BotTuning(heuristic="tricktable.bots.heuristic.spoil_five", win_bonus=10.0, playout="ensemble",
                    solve_at=0)


def _definition(name: str, options: tuple[OptionSpec, ...]) -> GameDefinition:
    rules = RULES[name]
    return GameDefinition(
        rules=rules, options=options, follow_rule=_follow_rule(rules), is_trump=is_trump, strength=strength,
        lowness=lowness, fast=SPOIL_FIVE_ENGINE, bots=_TUNING, short_options={}, demo_bot="random", demo_options={},
    )


TWENTY_FIVE = _definition("twenty_five", (*_COMMON_OPTIONS, OptionSpec("first_dealer", "int")))
FORTY_FIVE = _definition("forty_five", (*_COMMON_OPTIONS, OptionSpec("jink", "bool"),
                                        OptionSpec("first_dealer", "int")))

__all__ = ["FORTY_FIVE", "TWENTY_FIVE", "is_trump", "lowness", "strength"]
