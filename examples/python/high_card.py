"""High card: play the strongest card; every other decision (rob, bid, beg ...) the first legal action.

    tricktable bot examples/python/high_card.py:HighCard --seek all_fives --games 5

The ranking helper (``tricktable.client_sdk.cards.strength``) knows each game's card
order, so this bot plays all four games without knowing their rules.
"""

from __future__ import annotations

from tricktable.client_sdk.cards import strength
from tricktable.rules.actions import Action, Play
from tricktable.rules.game import SeatView


class HighCard:
    """Plays its strongest legal card."""

    def choose_action(self, view: SeatView) -> Action:
        plays = [a for a in view.legal_actions if isinstance(a, Play)]
        if not plays:
            return view.legal_actions[0]
        return max(plays, key=lambda a: strength(view, a.card))
