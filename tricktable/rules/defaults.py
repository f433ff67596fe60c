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
from tricktable.rules.cards import SUITS, Card
from tricktable.rules.cinq_cents import DISCARD_SIZE
from tricktable.rules.cinq_cents_play import strength as cinq_cents_strength
from tricktable.rules.cinq_cents_play import suit_of as cinq_cents_suit_of
from tricktable.rules.game import SeatView
from tricktable.rules.spoil_five_ranking import RANKINGS

#: The careful choices outside play, in order of preference: the first legal one is taken (after a rob, below).
_DECLINES: tuple[type[Action], ...] = (Pass, PassRob, PassJink, Stand, Gift, Run)
_SPOIL_FIVE = frozenset({"twenty_five", "forty_five"})


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
    if any(isinstance(a, Discard) for a in legal):
        return Discard(cards=tuple(sorted(view.hand, key=lambda c: lowness(view, c))[:DISCARD_SIZE]))
    return legal[0]


def lowness(view: SeatView, card: Card) -> tuple[int, int, int]:
    """A sort key: lower is a weaker card to give up (not trump first, then by the game's ranking, then index)."""
    trump = view.trump
    if view.game in _SPOIL_FIVE and trump is not None:
        ranking = RANKINGS[trump]
        trump_rank = ranking.trump_rank[card.index]
        return (1, trump_rank, card.index) if trump_rank else (0, ranking.plain_rank[card.index], card.index)
    if view.game == "cinq_cents":
        is_trump = card.is_joker or (trump is not None and cinq_cents_suit_of(card, trump) is trump)
        # A card's strength in its own suit; a joker at no-trump belongs to none and ranks by the jokers' own
        # order (La Blanche above Le Fou), whatever suit is named.
        led = card.suit if card.suit is not None else trump if trump is not None else SUITS[0]
        return (int(is_trump), cinq_cents_strength(card, trump, led), card.index)
    return (int(trump is not None and card.suit is trump), card.rank, card.index)
