"""What spectators may see, built from the rules' own seat views.

The rules decide visibility: ``Match.view(seat)`` shows a seat only what it
may know. A spectator may know what every seat may know, i.e. the public
part. It is taken from seat views without any game knowledge: the history's
events as the spectators see them (:meth:`tricktable.rules.events.CardPlayed.seen_by`
and kin), and the private fields (hand, buried card, kitty, discards, legal
actions) emptied.
"""

from __future__ import annotations

from dataclasses import replace

from tricktable.rules.game import Seat, SeatView
from tricktable.rules.match import Match

#: The seat number a spectator's view carries.
SPECTATOR: Seat = -1


def public_view(match: Match) -> SeatView:
    """The spectators' view of ``match``: the public part of every seat's view."""
    first = match.view(0)
    second = match.view(1)
    history = tuple(event.seen_by(None) for event in first.history)
    extras = {k: v for k, v in first.extras.items() if second.extras.get(k) == v}
    return replace(first, seat=SPECTATOR, hand=(), legal_actions=(), buried=None, kitty=(), discards=(),
                   history=history, extras=extras)

