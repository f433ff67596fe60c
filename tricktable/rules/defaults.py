"""The default action: what a careful absent player does when a seat times out or is away.

One home for the rule, used by the server (timeouts and away seats), its
documentation (docs/protocol.md, section 19) and the tests. It reads only the
seat's own view, so it never uses what that seat could not know. Per game:

- **Any game, in play**: the *lowest* legal card - a card that is not trump
  before a trump, and within each the weakest by the game's own ranking
  (Spoil Five family: docs/games.md 1.3's tables, the A of hearts a trump; All
  Fives: 2 lowest, A highest; Cinq Cents: docs/games.md 3.4-3.5, jokers
  highest, La Blanche above Le Fou at no-trump as with a trump). Ties (a
  joker's named suit) go to the first of the sorted legal actions.
- **Twenty-Five, Forty-Five**: a rob offered is taken (the dealer's of a
  turned-up ace, or beside the plays by the holder of the ace of trumps),
  burying the lowest card it may bury: taking a trump for the weakest card
  never weakens a hand. A jink is declined (``pass_jink``).
- **All Fives**: eldest hand stands; the dealer asked to beg gives the gift
  when it is allowed, else runs the pack.
- **Cinq Cents**: pass in the auction; the declarer discards the six lowest
  cards of the hand (by the order above, so trumps and jokers are kept).
"""

from __future__ import annotations

from tricktable.rules.actions import Action, Discard, Gift, Pass, PassJink, PassRob, Play, Rob, Run, Stand
from tricktable.rules.cards import Card
from tricktable.rules.game import SeatView
from tricktable.rules.registry import game_definition

#: The careful choices outside play, in order of preference: the first legal one is taken (after a rob, below).
_DECLINES: tuple[type[Action], ...] = (Pass, PassRob, PassJink, Stand, Gift, Run)


def default_action(view: SeatView) -> Action:
    """The action played for the seat of ``view`` (which must be to act) when it times out or is away.

    Raises:
        ValueError: the view offers no legal action (the seat is not to act).
    """
    legal = view.legal_actions
    if not legal:
        raise ValueError(f"seat {view.seat} has no legal action to default to")
    robs = [a for a in legal if isinstance(a, Rob)]
    if robs:
        return min(robs, key=lambda a: lowness(view, a.card))
    for kind in _DECLINES:
        for action in legal:
            if isinstance(action, kind):
                return action
    plays = [a for a in legal if isinstance(a, Play)]
    if plays:
        return min(plays, key=lambda a: lowness(view, a.card))
    discard = next((a for a in legal if isinstance(a, Discard)), None)
    if discard is not None:  # as many cards as the game discards, the lowest
        return Discard(cards=tuple(sorted(view.hand, key=lambda c: lowness(view, c))[:len(discard.cards)]))
    return legal[0]


def lowness(view: SeatView, card: Card) -> tuple[int, ...]:
    """A sort key: lower is a weaker card to give up (not trump first, then by the game's ranking, then index).

    Each game's own key (its definition's ``lowness``: the order this module's docstring describes).
    """
    return game_definition(view.game).lowness(view, card)
