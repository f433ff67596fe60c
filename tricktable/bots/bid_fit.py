"""Cinq Cents: how well a sampled world's hands fit the bids their seats made (a :data:`rules.determinize.Fit`).

The rules' sampler deals the unseen cards at random; a bot that believes
the bids prefers worlds where each bid is plausible. A seat that bid ``n``
in a denomination should count about ``n`` tricks there with its partner's
and the kitty's help (the heuristic's own count,
:func:`bots.heuristic.cinq_cents.estimate`); a seat that passed should not
count well over six anywhere. The sampler keeps the best fitting of a few
draws (:data:`rules.determinize.FIT_DRAWS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tricktable.bots.heuristic.cinq_cents import PARTNER_AND_KITTY, estimate
from tricktable.rules.actions import Denomination
from tricktable.rules.cards import Card
from tricktable.rules.determinize import Fit
from tricktable.rules.game import Seat, SeatView

#: Tricks a bid may exceed the bidder's sampled count by and still fit.
BID_SLACK = 1.0
#: Tricks (with partner and kitty) above which a sampled hand would not have passed.
PASS_CEILING = 7.0


def bid_fit(view: SeatView) -> Fit | None:
    """The misfit of sampled hands to the other seats' bids in ``view`` (None: no bid to fit)."""
    bids = [(seat, bid) for seat, bid in view.bids if seat != view.seat]
    if not bids:
        return None
    declarer = view.contract.seat if view.contract is not None else None

    def misfit(hands: Mapping[Seat, Sequence[Card]]) -> float:
        total = 0.0
        for seat, bid in bids:
            hand = list(hands[seat])
            if bid is None:
                best = max(estimate(hand, d) for d in Denomination) + PARTNER_AND_KITTY
                total += max(0.0, best - PASS_CEILING)
            else:
                tricks, denomination = bid
                help_ = PARTNER_AND_KITTY - (1.0 if seat == declarer else 0.0)  # the declarer kept the kitty's best
                total += max(0.0, tricks - BID_SLACK - (estimate(hand, denomination) + help_))
        return total
    return misfit


__all__ = ["BID_SLACK", "PASS_CEILING", "bid_fit"]
