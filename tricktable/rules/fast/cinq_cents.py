"""Cinq Cents québécois (docs/games.md section 3) as a compact, mutable playout state.

Rule choices, from docs/games.md section 3. The deck (3.1), the bid order and
standard values (3.3) and the card ranking (3.4: which suit a card belongs
to, how it bids for a trick) are the readable engine's own
(:func:`tricktable.rules.cards.cinq_cents_deck`, :mod:`tricktable.rules.cinq_cents_bids`,
:mod:`tricktable.rules.cinq_cents_play`), turned into flat tuples and bit sets once at
import; the rest is written from the rule text apart from
``tricktable.rules.cinq_cents``, so the agreement test cross-checks both:

- 3.1 4 players, seats 0 and 2 against 1 and 3; 46 cards (no 2s or 3s, La
  Blanche ``JKB`` and Le Fou ``JKF``); target 1000.
- 3.2 deal 3 each, 3 to the kitty, 4 each, 3 each, 3 to the kitty.
- 3.3 one round of bidding from eldest hand: a bid (6-10 tricks, S < C < D <
  H < NT) strictly above the highest so far, or pass; all pass: void deal,
  same dealer. The declarer takes the kitty and discards six.
- 3.4 trumps: JKB, JKF, J of T, J of T's colour partner, A K Q 10 ... 4 of
  T; jokers and the second bower belong to T. Plain suits A K Q J 10 ... 4.
  At no-trump the jokers beat everything, JKB over JKF.
- 3.5 the declarer leads; a holder of the suit led (trumps: any trump) must
  follow, else any card. At no-trump a joker belongs to no suit: playable
  only when unable to follow, or led naming a suit an earlier trick was led
  with by a card of that suit (never on the first trick).
- 3.6 made: the contract's value to the declarer's side, failed: minus it;
  the other side 10 a trick. A side at the target wins; both at it, the
  declarer's side.

Actions are integers in the readable engine's order: ``c`` (0..53) plays
card ``c``; ``JOKER_LEAD + 4 * (joker - 52) + suit`` leads a joker at
no-trump naming ``suit`` (C D H S = 0..3); ``BID + 5 * (tricks - 6) +
denomination`` (S C D H NT = 0..4) bids; :data:`PASS`; ``DISCARD | mask``
discards the six cards of the bit set ``mask``. The discard step lists all
C(16, 6) = 8008 discards (lexicographic by card, like ``rules``); a random
playout picks one by unranking instead of listing them.
``apply`` does not check legality.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from math import comb
from typing import Any, ClassVar

from tricktable.rules import cinq_cents_bids as bids
from tricktable.rules import cinq_cents_play as play
from tricktable.rules.actions import Denomination
from tricktable.rules.cards import ALL_CARDS, SUITS, cinq_cents_deck
from tricktable.rules.fast.bitset import DeckSource, FastMatch, bits

JKB = 52
JKF = 53
JOKER_LEAD = 54
BID = 62
PASS = 87
DISCARD = 1 << 54
_CARD_MASK = DISCARD - 1

#: Denominations in bid order (their record letters) and the card suit each makes trump (-1: no-trump).
DENOMINATIONS: tuple[str, ...] = tuple(d.value for d in bids.DENOMINATIONS)
_DENOMINATION_SUIT: tuple[int, ...] = tuple(-1 if d.suit is None else SUITS.index(d.suit) for d in bids.DENOMINATIONS)
NO_TRUMP = DENOMINATIONS.index(Denomination.NO_TRUMP.value)

_BIDDING, _DISCARD, _PLAY, _OVER = 0, 1, 2, 3
#: The 46-card deck by index (docs/games.md 3.1).
DECK: tuple[int, ...] = tuple(sorted(c.index for c in cinq_cents_deck()))
#: ``random()`` calls a shuffled deal draws (a Fisher-Yates shuffle of the whole deck).
SHUFFLE_DRAWS = len(DECK) - 1


class DenominationTables:
    """Following and trick-winning tables for one denomination (a trump suit or no-trump).

    ``follow[s]``: the cards that count as suit ``s`` for following (with a
    trump suit, the trump "suit" holds the jokers and the second bower and the
    partner suit loses its jack; at no-trump jokers are in no suit).
    ``suit_of[c]``: the suit card ``c`` leads (4 for a joker at no-trump).
    ``strength[s][c]``: how ``c`` bids for a trick led in suit ``s`` (0 for a card not in the deck).
    """

    __slots__ = ("follow", "strength", "suit_of", "trump")

    def __init__(self, denomination: int) -> None:
        trump = _DENOMINATION_SUIT[denomination]
        trump_suit = None if trump < 0 else SUITS[trump]
        self.trump = trump
        suits = [play.suit_of(card, trump_suit) for card in ALL_CARDS]
        suit_of = [4 if s is None else SUITS.index(s) for s in suits]
        self.suit_of: tuple[int, ...] = tuple(suit_of)
        self.follow: tuple[int, ...] = tuple(
            sum(1 << c for c in DECK if suit_of[c] == s) for s in range(4)
        )
        self.strength: tuple[tuple[int, ...], ...] = tuple(
            tuple(play.strength(ALL_CARDS[c], trump_suit, led) if c in DECK else 0 for c in range(54))
            for led in SUITS
        )


TABLES: tuple[DenominationTables, ...] = tuple(DenominationTables(d) for d in range(5))

#: The standard bid values (docs/games.md 3.3) by [tricks - 6][denomination].
STANDARD_VALUES: tuple[tuple[int, ...], ...] = bids.STANDARD_TABLE.values


def nth_combination(items: Sequence[int], size: int, index: int) -> list[int]:
    """The ``index``-th ``size``-subset of ``items`` in ``itertools.combinations`` order."""
    out: list[int] = []
    n = len(items)
    i = 0
    while size:
        count = comb(n - i - 1, size - 1)
        if index < count:
            out.append(items[i])
            size -= 1
        else:
            index -= count
        i += 1
    return out


class CinqCentsFast(FastMatch):
    """A Cinq Cents match as one mutable state; see the module doc for the rules and action codes.

    Public attributes, read-only by convention: ``to_act`` (-1 when over),
    ``scores`` (per side), ``deal_points``, ``trick_winners``, ``contract``
    ((seat, tricks, denomination) or None), ``last_deal`` ((points, trick
    winners, void) of the last finished deal), ``over``, ``winners``.
    """

    __slots__ = (
        "_deck", "_row_led", "best", "best_seat", "bid_high", "bid_seat", "bids_made", "contract", "deal_index",
        "deal_points", "dealer", "decks", "hands", "kitty", "last_deal", "lead_card", "led", "n", "over", "phase",
        "rng", "scores", "suits_led", "tables", "target", "to_act", "trick_len", "trick_winners", "values",
        "winners", "won",
    )
    COPIED = ("_deck", "deal_points", "hands", "scores", "trick_winners", "won")

    def __init__(self, *, target: int = 1000, values: Sequence[Sequence[int]] = STANDARD_VALUES,
                 first_dealer: int = 0, decks: DeckSource | None = None, rng: random.Random | None = None) -> None:
        if decks is None and rng is None:
            raise ValueError("a fast match needs decks or an rng to shuffle with")
        self.n = 4
        self.target = target
        self.values = tuple(tuple(row) for row in values)
        self.decks = decks
        self.rng = rng
        self.scores = [0, 0]
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.dealer = first_dealer
        self.deal_index = 0
        self.last_deal: tuple[tuple[int, ...], tuple[int, ...], bool] | None = None
        self._deck = list(DECK)
        self._start_deal()

    # --- dealing -------------------------------------------------------------

    def _start_deal(self) -> None:
        given = None if self.decks is None else self.decks(self.deal_index)
        if given is not None:
            deck: Sequence[int] = given
        else:
            deck = self._deck
            rnd = self.rng.random  # type: ignore[union-attr]
            size = len(deck)
            for i in range(SHUFFLE_DRAWS):
                j = i + int(rnd() * (size - i))
                deck[i], deck[j] = deck[j], deck[i]
        hands = [0, 0, 0, 0]
        kitty = 0
        pos = 0
        for step in (3, -3, 4, 3, -3):
            if step < 0:
                for c in deck[pos:pos - step]:
                    kitty |= 1 << c
                pos -= step
                continue
            for i in range(1, 5):
                seat = (self.dealer + i) % 4
                for c in deck[pos:pos + step]:
                    hands[seat] |= 1 << c
                pos += step
        self.hands = hands
        self.kitty = kitty
        self.phase = _BIDDING
        self.to_act = (self.dealer + 1) % 4
        self.bids_made = 0
        self.bid_high = self.bid_seat = -1
        self.contract: tuple[int, int, int] | None = None
        self.deal_points = [0, 0]
        self.won = [0, 0]
        self.trick_winners: list[int] = []
        self.trick_len = 0
        self.suits_led = 0
        self.lead_card = -1
        self.led = -1
        self.best = self.best_seat = -1
        self._row_led: tuple[int, ...] = ()
        self.tables = TABLES[NO_TRUMP]

    def draw_as_dealt(self, deals: int) -> None:
        """Draw from the generator what dealing the next deal ``deals`` times draws, without dealing.

        A search that plays a deal's ends without this state's copies (the
        exact solver) keeps the generator where the copies would have left it:
        each shuffled deal (:meth:`_start_deal`) draws :data:`SHUFFLE_DRAWS`
        ``random()`` calls, and ``getrandbits(64 * k)`` advances the Mersenne
        Twister by exactly the two words each of ``k`` such calls takes (a test
        checks it). Nothing is drawn when the next deal's deck is given.
        """
        if deals <= 0 or self.rng is None:
            return
        if self.decks is not None and self.decks(self.deal_index + 1) is not None:
            return
        self.rng.getrandbits(64 * deals * SHUFFLE_DRAWS)

    # --- the state API -----------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal actions of ``to_act`` in the readable engine's order; empty when over."""
        phase = self.phase
        if phase == _PLAY:
            return self._legal_plays()
        if phase == _BIDDING:
            acts = list(range(BID + self.bid_high + 1, PASS))
            acts.append(PASS)
            return acts
        if phase == _DISCARD:
            cards = bits(self.hands[self.to_act])
            return [DISCARD | sum(1 << c for c in combo) for combo in itertools.combinations(cards, 6)]
        return []

    def _legal_plays(self) -> list[int]:
        hand = self.hands[self.to_act]
        tables = self.tables
        if self.trick_len:
            follow = hand & tables.follow[self.led]
            return bits(follow or hand)
        if tables.trump >= 0:
            return bits(hand)
        # docs/games.md 3.5: at no-trump a joker leads only naming a suit already led, never on the first trick.
        acts = bits(hand & _CARD_MASK & ~((1 << JKB) | (1 << JKF)))
        if self.trick_winners:
            for joker in (JKB, JKF):
                if hand >> joker & 1:
                    acts.extend(JOKER_LEAD + 4 * (joker - JKB) + s for s in range(4) if self.suits_led >> s & 1)
        return acts

    def is_legal(self, action: int) -> bool:
        """True when ``action`` is legal for ``to_act`` now."""
        if self.phase == _DISCARD:
            hand = self.hands[self.to_act]
            mask = action & _CARD_MASK
            return action & DISCARD != 0 and mask & hand == mask and mask.bit_count() == 6
        return action in self.legal_actions()

    def apply(self, action: int) -> None:
        """Apply a legal ``action`` (unchecked) for ``to_act``; a finished deal deals the next one."""
        if action < BID:
            if action < JOKER_LEAD:
                self._play(action, -1)
            else:
                self._play(JKB + (action - JOKER_LEAD) // 4, (action - JOKER_LEAD) % 4)
        elif action <= PASS:
            self._bid(action)
        else:
            seat = self.to_act
            self.hands[seat] &= ~(action & _CARD_MASK)
            self.phase = _PLAY

    def _bid(self, action: int) -> None:
        seat = self.to_act
        if action != PASS:
            self.bid_high = action - BID
            self.bid_seat = seat
        self.bids_made += 1
        if self.bids_made < 4:
            self.to_act = (seat + 1) % 4
            return
        if self.bid_high < 0:
            # docs/games.md 3.3: all passed; the same dealer deals again.
            self._end_deal(void=True)
            return
        declarer, denomination = self.bid_seat, self.bid_high % 5
        self.contract = (declarer, 6 + self.bid_high // 5, denomination)
        self.hands[declarer] |= self.kitty
        self.tables = TABLES[denomination]
        self.phase = _DISCARD
        self.to_act = declarer

    def _play(self, c: int, named: int) -> None:
        seat = self.to_act
        self.hands[seat] &= ~(1 << c)
        tables = self.tables
        if self.trick_len == 0:
            led = named if named >= 0 else tables.suit_of[c]
            if named < 0:
                self.suits_led |= 1 << (c // 13) if c < 52 else 0
            self.led = led
            self._row_led = row = tables.strength[led]
            self.best = row[c]
            self.best_seat = seat
            self.trick_len = 1
        else:
            s = self._row_led[c]
            if s > self.best:
                self.best = s
                self.best_seat = seat
            self.trick_len += 1
        if self.trick_len < 4:
            self.to_act = (seat + 1) % 4
            return
        winner = self.best_seat
        self.won[winner & 1] += 1
        self.trick_winners.append(winner)
        self.trick_len = 0
        self.to_act = winner
        if len(self.trick_winners) == 10:
            self._end_deal(void=False)

    def _end_deal(self, *, void: bool) -> None:
        contract = None if void else self.contract
        winners: tuple[int, ...] = ()
        if contract is not None:
            points, winners = self.deal_result(self.won, self.scores)
            self.deal_points = points
            self.scores[0] += points[0]
            self.scores[1] += points[1]
        self.last_deal = (tuple(self.deal_points), tuple(self.trick_winners), void)
        if contract is not None:
            if winners:
                self.over = True
                self.winners = winners
                self.phase = _OVER
                self.to_act = -1
                return
            self.dealer = (self.dealer + 1) % 4
        self.deal_index += 1
        self._start_deal()

    def deal_result(self, won: Sequence[int], scores: Sequence[int]) -> tuple[list[int], tuple[int, ...]]:
        """The contract's scoring of a played deal (docs/games.md 3.6): each side's points, and the winners if it
        ends the match (empty if not).

        ``won``: the tricks each side took; ``scores``: the side totals before
        the deal's points. Made, the contract's value to the declarer's side,
        failed, minus it; the other side 10 a trick; a side at the target
        wins, both at it the declarer's. The state is not changed, so an exact
        search can score the deal ends it reaches without playing them on a copy.
        """
        contract = self.contract
        if contract is None:
            raise ValueError("no contract: the deal was not bid")
        declarer, tricks, denomination = contract
        ours = declarer & 1
        value = self.values[tricks - 6][denomination]
        points = [0, 0]
        points[ours] = value if won[ours] >= tricks else -value
        points[1 - ours] = 10 * won[1 - ours]
        reached = tuple(side for side in (0, 1) if scores[side] + points[side] >= self.target)
        return points, reached if len(reached) <= 1 else (ours,)

    # --- simulation -------------------------------------------------------------

    #: Action codes below this are card plays (a joker lead naming a suit included).
    PLAYS_BELOW: ClassVar[int] = BID

    def position_key(self) -> tuple[int, ...] | None:
        """Everything the rest of the deal depends on during card play (None in another phase).

        The exact solver (:mod:`tricktable.bots.solver`) keys its transposition table on
        it (the suits led so far decide the joker leads at no-trump).
        """
        if self.phase != _PLAY:
            return None
        trick = (self.led, self.best, self.best_seat) if self.trick_len else (-1, -1, -1)
        return (*self.hands, self.to_act, self.trick_len, *trick, self.suits_led, *self.won)

    def play_order(self, code: int) -> tuple[int, int]:
        """How playing ``code`` (a card) ranks now: (its strength in the current trick, 0 if it cannot win it;
        its strength as a lead). Playout policies read it; the rules do not."""
        c = code if code < JOKER_LEAD else JKB + (code - JOKER_LEAD) // 4
        tables = self.tables
        suit = tables.suit_of[c]
        own = tables.strength[suit if suit < 4 else 0][c]  # a joker at no-trump leads no suit: any row has it
        return (self._row_led[c] if self.trick_len else own), own

    def random_action(self, rnd: Callable[[], float]) -> int:
        """``legal_actions()[int(rnd() * len(...))]``, without listing the 8008 discards."""
        if self.phase == _DISCARD:
            cards = bits(self.hands[self.to_act])
            combo = nth_combination(cards, 6, int(rnd() * comb(len(cards), 6)))
            return DISCARD | sum(1 << c for c in combo)
        acts = self.legal_actions()
        return acts[int(rnd() * len(acts))]

    def random_playout(self, rng: random.Random, *, one_deal: bool = False) -> int:
        """Play uniformly random legal actions to the end of the match (``one_deal``: of a scored deal).

        Returns the number of decisions. Uniformly random Cinq Cents seldom
        ends a match (failed contracts drive both scores down), so bots and the
        bench use ``one_deal``. Same choices as the ``legal_actions``/``apply``
        loop with ``acts[int(rng.random() * len(acts))]``.
        """
        self.rng = rng
        rnd = rng.random
        decisions = 0
        start = self.deal_index
        while not self.over:
            self.apply(self.random_action(rnd))
            decisions += 1
            if one_deal and self.deal_index != start and self.last_deal is not None and not self.last_deal[2]:
                break
        return decisions


def values_from_options(table: Mapping[str, Mapping[str, int]] | None) -> tuple[tuple[int, ...], ...]:
    """The ``bid_values`` option (keyed "6".."10", then S C D H NT) as [tricks - 6][denomination]."""
    if table is None:
        return STANDARD_VALUES
    return tuple(tuple(int(table[str(t)][d]) for d in DENOMINATIONS) for t in range(6, 11))


def from_options(game: str, options: Mapping[str, Any], *, decks: DeckSource | None = None,
                 rng: random.Random | None = None) -> CinqCentsFast:
    """A fast Cinq Cents match from resolved options (``target``, ``first_dealer``, ``bid_values``)."""
    if game != "cinq_cents":
        raise ValueError(f"not Cinq Cents: {game!r}")
    return CinqCentsFast(target=options["target"], values=values_from_options(options.get("bid_values")),
                         first_dealer=options["first_dealer"], decks=decks, rng=rng)
