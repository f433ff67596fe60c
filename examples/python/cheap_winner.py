"""Cheap winner: win the trick with the lowest card that wins it, else throw the lowest card.

    tricktable match --game twenty_five --bots examples/python/cheap_winner.py:CheapWinner,random,random,random

Shows the view's trick and the ranking helper: ``would_win`` says whether a
card played now would be winning the trick, ``strength`` orders the cards.
A partner already winning the trick is left alone.
"""

from __future__ import annotations

from tricktable.client_sdk.cards import strength, winning, would_win
from tricktable.rules.actions import Action, Play
from tricktable.rules.game import SeatView


class CheapWinner:
    """Wins tricks as cheaply as it can; never overtakes its partner."""

    def choose_action(self, view: SeatView) -> Action:
        plays = [a for a in view.legal_actions if isinstance(a, Play)]
        if not plays:
            return view.legal_actions[0]

        def by_strength(action: Play) -> int:
            return strength(view, action.card)

        leader = winning(view)
        partner_winning = leader is not None and leader[0] != view.seat and \
            view.side_of(leader[0]) == view.side_of(view.seat)
        winners = [a for a in plays if would_win(view, a.card)]
        if winners and not partner_winning:
            return min(winners, key=by_strength)
        return min(plays, key=by_strength)
