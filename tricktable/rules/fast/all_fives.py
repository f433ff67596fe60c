"""All Fives (docs/games.md section 2) as a compact, mutable playout state.

Rule choices, from docs/games.md section 2. The counting values (2.4) and how a
card bids for a trick (2.3) are the readable engine's own
(:data:`tricktable.rules.all_fives.COUNTING_VALUES`, :func:`tricktable.rules.all_fives.trick_strength`),
turned into flat tuples once at import; the rest is written from the rule
text apart from ``tricktable.rules.all_fives``, so the agreement test cross-checks both:

- 2.1 2 or 3 players, each alone (side ``k`` is seat ``k``); every suit
  ranks A K Q J 10 ... 2, trump included; target 61.
- 2.2 deal 3 each then 3 each from eldest hand, then expose the turn-up
  (proposed trump, joins no hand). Eldest hand stands or begs; after a beg
  the dealer gifts (eldest scores 1 at once; refused when eldest's total
  before the deal plus one reaches the target) or runs: 3 more each, expose,
  again while the exposed suit is the proposed one. Before each round the
  deck must hold 3 a player plus one, else the deal is void and the same
  dealer deals again.
- 2.3 eldest hand leads; a holder of the suit led must follow; the highest
  trump wins, else the highest card of the suit led; all cards are played.
- 2.4 each player scores the trumps in the tricks they won (A 4, K 3, Q 2,
  J 1, 10 10, 5 5) when the deal is played out; after a deal, when someone
  has reached the target, the highest totals win (shared on a tie).

Actions are integers in the readable engine's sort order: ``c`` (0..51)
plays card ``c``; :data:`STAND`, :data:`BEG`, :data:`GIFT`, :data:`RUN`.
``apply`` does not check legality.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from tricktable.rules.all_fives import COUNTING_VALUES, trick_strength
from tricktable.rules.cards import ALL_CARDS, SUITS
from tricktable.rules.fast.bitset import DeckSource, FastMatch, bits

STAND = 52
BEG = 53
GIFT = 54
RUN = 55

_STAND_OR_BEG, _GIFT_OR_RUN, _PLAY, _OVER = 0, 1, 2, 3

#: Cards of each suit as a bit set (index = suit * 13 + rank - 2, ace highest).
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
_CARDS = ALL_CARDS[:52]
#: ``VALUES[trump][c]``: what card ``c`` counts to the winner of its trick (docs/games.md 2.4).
VALUES: tuple[tuple[int, ...], ...] = tuple(
    tuple(COUNTING_VALUES.get(card.rank, 0) if card.suit is trump else 0 for card in _CARDS) for trump in SUITS
)
#: ``STRENGTH[trump][led][c]``: the engine's trick strength of ``c`` (a trump over the suit led over the rest),
#: 0 for a card of neither suit (it cannot win).
STRENGTH: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(trick_strength(card, trump, led) if card.suit in (trump, led) else 0 for card in _CARDS)
        for led in SUITS
    )
    for trump in SUITS
)


class AllFivesFast(FastMatch):
    """An All Fives match as one mutable state; see the module doc for the rules and action codes.

    Public attributes, read-only by convention: ``to_act`` (-1 when over),
    ``scores`` (per seat, the current deal's gift included), ``deal_points``,
    ``trump`` (-1 before it is set), ``exposed``, ``trick_winners``,
    ``last_deal`` ((points, trick winners, void) of the last finished deal)
    and ``last_exposed`` (its exposed cards),
    ``over``, ``winners``.
    """

    __slots__ = (
        "_deck", "_pos", "_row", "_shuffle", "_values", "best", "best_seat", "deal_index", "deal_points", "dealer",
        "decks", "exposed", "hands", "last_deal", "last_exposed", "led", "n", "over", "phase", "proposed", "rng",
        "scores", "target", "to_act", "trick_count", "trick_len", "trick_value", "trick_winners", "trump", "winners",
        "won",
    )
    COPIED = ("_deck", "deal_points", "exposed", "hands", "scores", "trick_winners", "won")

    def __init__(self, *, players: int, target: int = 61, first_dealer: int = 0, decks: DeckSource | None = None,
                 rng: random.Random | None = None) -> None:
        if decks is None and rng is None:
            raise ValueError("a fast match needs decks or an rng to shuffle with")
        self.n = players
        self.target = target
        self.decks = decks
        self.rng = rng
        self.scores = [0] * players
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.dealer = first_dealer
        self.deal_index = 0
        self.last_deal: tuple[tuple[int, ...], tuple[int, ...], bool] | None = None
        self.last_exposed: tuple[int, ...] = ()
        self._deck: list[int] = list(range(52))
        self._pos = 0
        self._start_deal()

    # --- dealing -------------------------------------------------------------

    def _draw(self, k: int) -> list[int]:
        """The next ``k`` cards of the deck; with an rng, shuffled in only as they are drawn."""
        pos = self._pos
        d = self._deck
        if self._shuffle:
            rnd = self.rng.random  # type: ignore[union-attr]
            for i in range(pos, pos + k):
                j = i + int(rnd() * (52 - i))
                d[i], d[j] = d[j], d[i]
        self._pos = pos + k
        return d[pos:pos + k]

    def _deal_round(self) -> None:
        n = self.n
        cards = self._draw(3 * n)
        hands = self.hands
        for i in range(n):
            seat = (self.dealer + 1 + i) % n
            a, b, c = cards[3 * i:3 * i + 3]
            hands[seat] |= (1 << a) | (1 << b) | (1 << c)

    def _start_deal(self) -> None:
        given = None if self.decks is None else self.decks(self.deal_index)
        self._shuffle = given is None
        if given is not None:
            self._deck = list(given)
        self._pos = 0
        n = self.n
        self.hands = [0] * n
        self._deal_round()
        self._deal_round()
        turn_up = self._draw(1)[0]
        self.exposed = [turn_up]
        self.proposed = turn_up // 13
        self.trump = -1
        self.deal_points = [0] * n
        self.won = [0] * n
        self.trick_winners: list[int] = []
        self.trick_len = 0
        self.trick_count = 0
        self.led = -1
        self.best = self.best_seat = -1
        self.trick_value = 0
        self._row: tuple[int, ...] = ()
        self._values: tuple[int, ...] = VALUES[0]
        self.phase = _STAND_OR_BEG
        self.to_act = (self.dealer + 1) % n

    def _set_trump(self, trump: int) -> None:
        self.trump = trump
        self._values = VALUES[trump]
        self.phase = _PLAY
        self.to_act = (self.dealer + 1) % self.n

    def _run(self) -> None:
        need = 3 * self.n + 1
        while True:
            if 52 - self._pos < need:
                # docs/games.md 2.2: the deck cannot serve a round: void deal, same dealer.
                self._end_deal(void=True)
                return
            self._deal_round()
            card = self._draw(1)[0]
            self.exposed.append(card)
            if card // 13 != self.proposed:
                self._set_trump(card // 13)
                return

    # --- the state API -----------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal actions of ``to_act``, ascending (the readable engine's order); empty when over."""
        phase = self.phase
        if phase == _PLAY:
            hand = self.hands[self.to_act]
            if self.trick_len:
                follow = hand & SUIT_MASKS[self.led]
                return bits(follow or hand)
            return bits(hand)
        if phase == _STAND_OR_BEG:
            return [STAND, BEG]
        if phase == _GIFT_OR_RUN:
            eldest = (self.dealer + 1) % self.n
            # docs/games.md 2.2 (Ruling): no gift that would bring eldest hand to the target.
            gift_ok = self.scores[eldest] - self.deal_points[eldest] + 1 < self.target
            return [GIFT, RUN] if gift_ok else [RUN]
        return []

    def apply(self, action: int) -> None:
        """Apply a legal ``action`` (unchecked) for ``to_act``; a finished deal deals the next one."""
        if action < STAND:
            self._play(action)
        elif action == STAND:
            self._set_trump(self.proposed)
        elif action == BEG:
            self.phase = _GIFT_OR_RUN
            self.to_act = self.dealer
        elif action == GIFT:
            eldest = (self.dealer + 1) % self.n
            self.deal_points[eldest] += 1
            self.scores[eldest] += 1
            self._set_trump(self.proposed)
        else:
            self._run()

    def _play(self, c: int) -> None:
        seat = self.to_act
        self.hands[seat] ^= 1 << c
        if self.trick_len == 0:
            self.led = c // 13
            self._row = row = STRENGTH[self.trump][c // 13]
            self.best = row[c]
            self.best_seat = seat
            self.trick_value = self._values[c]
            self.trick_len = 1
        else:
            s = self._row[c]
            if s > self.best:
                self.best = s
                self.best_seat = seat
            self.trick_value += self._values[c]
            self.trick_len += 1
        if self.trick_len < self.n:
            self.to_act = (seat + 1) % self.n
            return
        winner = self.best_seat
        self.won[winner] += self.trick_value
        self.trick_winners.append(winner)
        self.trick_len = 0
        self.to_act = winner
        if not self.hands[winner]:
            self._end_deal(void=False)

    def _end_deal(self, *, void: bool) -> None:
        n = self.n
        if not void:
            for seat in range(n):
                self.deal_points[seat] += self.won[seat]
                self.scores[seat] += self.won[seat]
        self.last_deal = (tuple(self.deal_points), tuple(self.trick_winners), void)
        self.last_exposed = tuple(self.exposed)
        if not void:
            best = max(self.scores)
            if best >= self.target:
                self.over = True
                self.winners = tuple(s for s in range(n) if self.scores[s] == best)
                self.phase = _OVER
                self.to_act = -1
                return
            self.dealer = (self.dealer + 1) % n
        self.deal_index += 1
        self._start_deal()

    # --- simulation -------------------------------------------------------------

    #: Action codes below this are card plays.
    PLAYS_BELOW: ClassVar[int] = STAND

    def position_key(self) -> tuple[int, ...] | None:
        """Everything the rest of the deal depends on during card play (None in another phase).

        The exact solver (:mod:`tricktable.bots.solver`) keys its transposition table on it.
        """
        if self.phase != _PLAY:
            return None
        trick = (self.led, self.best, self.best_seat, self.trick_value) if self.trick_len else (-1, -1, -1, 0)
        return (*self.hands, self.to_act, self.trick_len, *trick, *self.won, *self.scores)

    def play_order(self, code: int) -> tuple[int, int]:
        """How playing ``code`` (a card) ranks now: (its strength in the current trick, 0 if it cannot win it;
        its strength as a lead). Playout policies read it; the rules do not."""
        own = STRENGTH[self.trump][code // 13][code]
        return (self._row[code] if self.trick_len else own), own

    def random_playout(self, rng: random.Random, *, one_deal: bool = False) -> int:
        """Play uniformly random legal actions to the end of the match (``one_deal``: of a scored deal).

        Returns the number of decisions; new deals are shuffled from ``rng``
        unless the state has a fixed deck source. Same as the
        ``legal_actions``/``apply`` loop with ``acts[int(rng.random() * len(acts))]``.
        """
        self.rng = rng
        rnd = rng.random
        decisions = 0
        start = self.deal_index
        while not self.over:
            acts = self.legal_actions()
            self.apply(acts[int(rnd() * len(acts))])
            decisions += 1
            if one_deal and self.deal_index != start and self.last_deal is not None and not self.last_deal[2]:
                break
        return decisions


def from_options(game: str, options: Mapping[str, Any], *, decks: DeckSource | None = None,
                 rng: random.Random | None = None) -> AllFivesFast:
    """A fast All Fives match from resolved options (``players``, ``target``, ``first_dealer``)."""
    if game != "all_fives":
        raise ValueError(f"not All Fives: {game!r}")
    return AllFivesFast(players=options["players"], target=options["target"],
                        first_dealer=options["first_dealer"], decks=decks, rng=rng)
