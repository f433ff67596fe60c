"""Twenty-Five and Forty-Five (docs/games.md section 1) as a compact, mutable playout state.

Rule choices, all from docs/games.md section 1. The card ranking (1.3) and the
deal patterns are the readable engine's own (:data:`tricktable.rules.spoil_five_ranking.RANKINGS`,
:data:`tricktable.rules.spoil_five_config.DEAL_PATTERNS`), turned into flat tuples and
bit sets once at import; the rest (following, robbing, jinking, scoring) is
written from the rule text apart from ``tricktable.rules.spoil_five``, so the agreement
test cross-checks both:

- 1.1 seat ``s`` is on side ``s mod sides``.
- 1.2 deal ``a`` each then ``b`` each (``deal_pattern`` 3-2 or 2-3) from
  eldest hand round to the dealer; the next card is the turn-up, its suit
  trump; the rest of the deck is unused. Eldest hand leads.
- 1.3 trumps high to low: 5 of T, J of T, A of hearts, A of T (unless T is
  hearts), then red K Q 10 9 8 7 6 4 3 2 or black K Q 2 3 4 6 7 8 9 10.
  Plain suits: red K Q J 10 ... 2 A (no A of hearts), black K Q J A 2 ... 10.
  The highest trump wins a trick, else the highest card of the suit led; the
  A of hearts led is a trump lead.
- 1.4 robbing (option ``robbing``): a turned-up ace makes the dealer decide
  first (``rob`` burying a card of the hand as dealt, or ``pass_rob``);
  otherwise the seat dealt the ace of trumps (the A of hearts only when
  hearts are trumps) may rob at their first turn of the first trick, then
  plays in the same turn. At most one rob per deal.
- 1.5 a plain lead must be followed (with ``trump_at_will``: followed or
  trumped); a trump lead forces a trump unless every trump held is a top
  trump that outranks the card led.
- 1.6 Twenty-Five: 5 a trick to the winner's side, scored as won; the game
  ends the moment a side reaches the target.
- 1.7 Forty-Five: 5 a trick plus 5 to the side of the highest trump played,
  added at the end of the deal; if sides reached the target, the first in
  counting order (eldest hand's side first, by seat, the dealer's last)
  wins. ``jink``: after the dealer's rob decision, from eldest hand, each
  seat may declare until the first declaration; all five tricks doubles the
  deal's points, anything less ends the game after the deal is scored, the
  declaring side losing and the other sides with the highest total winning.

Actions are integers: ``c`` (0..51, :attr:`tricktable.rules.cards.Card.index`) plays
card ``c``; ``ROB + c`` robs burying ``c``; :data:`PASS_ROB`, :data:`JINK`,
:data:`PASS_JINK`. Their numeric order is the readable engine's sort order
(plays, robs, pass_rob, jink, pass_jink), so ``legal_actions()`` lists them
in the same order as ``rules`` does.

``apply`` does not check legality (that is the readable engine's job and
costs time in a playout); use :meth:`SpoilFiveFast.is_legal` when the action
comes from outside.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from tricktable.rules import spoil_five_ranking as ranking
from tricktable.rules.cards import ALL_CARDS, SUITS
from tricktable.rules.fast.bitset import DeckSource, FastMatch, bits
from tricktable.rules.spoil_five_config import DEAL_PATTERNS

#: Action codes: plays are the card index itself.
ROB = 52
PASS_ROB = 104
JINK = 105
PASS_JINK = 106

#: The A of hearts' card index: a trump whatever the trump suit (1.3).
ACE_OF_HEARTS = ranking.ACE_OF_HEARTS.index

#: The 52 cards by index (no jokers in this family).
_CARDS = ALL_CARDS[:52]

#: Phases of a deal (and the end of the match).
_ROB_DEALER, _JINK, _PLAY, _OVER = 0, 1, 2, 3


class TrumpTables:
    """Everything play needs for one trump suit, precomputed once.

    ``trump_rank[c]``: 1..14 for a trump (higher wins), 0 otherwise.
    ``strength[led][c]``: how ``c`` bids for a trick led by ``led``: 100 +
    trump rank for a trump, the plain rank for a card of the plain suit led,
    0 for a card that cannot win. ``follow[led]``: the cards whose presence in
    a hand restricts the play (the plain suit led; for a trump lead, the trumps
    not exempt from it); ``allow[led]`` / ``allow_at_will[led]``: what a hand
    holding one of them may then play.
    """

    __slots__ = ("ace", "allow", "allow_at_will", "follow", "strength", "trump", "trump_mask", "trump_rank")

    def __init__(self, trump: int) -> None:
        engine = ranking.RANKINGS[SUITS[trump]]
        self.trump = trump
        self.ace = engine.ace_of_trumps.index
        rank = engine.trump_rank[:52]
        plain = engine.plain_rank[:52]
        self.trump_rank: tuple[int, ...] = rank
        self.trump_mask = sum(1 << c.index for c in engine.trumps)
        suit_mask = [sum(1 << c for c in range(52) if plain[c] and c // 13 == suit) for suit in range(4)]
        top = [c for c in range(52) if engine.top[c]]
        strength: list[tuple[int, ...]] = []
        follow: list[int] = []
        allow: list[int] = []
        allow_at_will: list[int] = []
        for led in range(52):
            strength.append(tuple(engine.strength(card, _CARDS[led]) for card in _CARDS))
            if rank[led]:
                exempt = sum(1 << c for c in top if rank[c] > rank[led])
                follow.append(self.trump_mask & ~exempt)
                allow.append(self.trump_mask)
                allow_at_will.append(self.trump_mask)
            else:
                led_suit = led // 13
                follow.append(suit_mask[led_suit])
                allow.append(suit_mask[led_suit])
                allow_at_will.append(suit_mask[led_suit] | self.trump_mask)
        self.strength: tuple[tuple[int, ...], ...] = tuple(strength)
        self.follow: tuple[int, ...] = tuple(follow)
        self.allow: tuple[int, ...] = tuple(allow)
        self.allow_at_will: tuple[int, ...] = tuple(allow_at_will)


#: Tables for each trump suit (C, D, H, S).
TABLES: tuple[TrumpTables, ...] = tuple(TrumpTables(t) for t in range(4))


#: A deck source: the ``index``-th deal's deck (0-based, card indexes, top first).
class SpoilFiveFast(FastMatch):
    """A Twenty-Five or Forty-Five match as one mutable state (see the module doc for the rules).

    Build it with :meth:`from_options` (the readable config's option names) or
    the keyword constructor. Decks come from ``decks`` (deal index -> card
    indexes, top first) when given, otherwise from ``rng``, which shuffles only
    the cards a deal uses. Public attributes are read-only by convention:
    ``to_act`` (-1 when the match is over), ``scores`` (running side totals,
    the current deal included), ``deal_points``, ``trick_winners`` (this
    deal), ``last_deal`` (the last finished deal's points, trick winners and
    highest-trump seat, -1 for none), ``over`` and ``winners`` (sides).
    """

    __slots__ = (
        "_allow", "_deck", "_follow", "_row", "_strength", "_trank", "best", "best_seat", "bonus_points",
        "deal_index", "deal_points", "dealer", "decks", "hands", "hi_rank", "hi_seat", "jink", "jinked_by",
        "last_deal", "lead_card", "leader", "n", "nsides", "over", "pattern", "phase", "rng", "rob_seat", "robbed_by",
        "robbing", "score_as_won", "scores", "side_of", "side_tricks", "target", "to_act", "trick_len",
        "trick_winners", "trump", "trump_at_will", "turn_up", "winners",
    )
    COPIED = ("_deck", "deal_points", "hands", "scores", "side_tricks", "trick_winners")

    def __init__(self, *, players: int, sides: int, score_as_won: bool, bonus_points: int, target: int,
                 trump_at_will: bool, robbing: bool = True, jink: bool = False, deal_pattern: str = "3-2",
                 first_dealer: int = 0, decks: DeckSource | None = None,
                 rng: random.Random | None = None) -> None:
        if decks is None and rng is None:
            raise ValueError("a fast match needs decks or an rng to shuffle with")
        self.n = players
        self.nsides = sides
        self.side_of: tuple[int, ...] = tuple(s % sides for s in range(players))
        self.score_as_won = score_as_won
        self.bonus_points = bonus_points
        self.target = target
        self.trump_at_will = trump_at_will
        self.robbing = robbing
        self.jink = jink
        self.pattern: tuple[int, int] = DEAL_PATTERNS[deal_pattern]
        self.decks = decks
        self.rng = rng
        self._deck = list(range(52))
        self.scores = [0] * sides
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.dealer = first_dealer
        self.deal_index = 0
        self.last_deal: tuple[tuple[int, ...], tuple[int, ...], int] | None = None
        self._start_deal()

    @classmethod
    def from_options(cls, game: str, options: Mapping[str, Any], *, decks: DeckSource | None = None,
                     rng: random.Random | None = None) -> SpoilFiveFast:
        """A match from resolved options as a record writes them (``first_dealer`` must be set)."""
        if game not in ("twenty_five", "forty_five"):
            raise ValueError(f"not a Spoil Five game: {game!r}")
        forty_five = game == "forty_five"
        return cls(
            players=options["players"], sides=options["sides"], score_as_won=not forty_five,
            bonus_points=5 if forty_five else 0, target=options["target"],
            trump_at_will=options["trump_at_will"], robbing=options["robbing"],
            jink=bool(options.get("jink", False)), deal_pattern=options["deal_pattern"],
            first_dealer=options["first_dealer"], decks=decks, rng=rng,
        )

    # --- dealing -----------------------------------------------------------

    def _next_deck(self, need: int) -> Sequence[int]:
        given = None if self.decks is None else self.decks(self.deal_index)
        if given is not None:
            return given
        # Partial Fisher-Yates: only the cards this deal uses are drawn.
        d = self._deck
        rnd = self.rng.random  # type: ignore[union-attr]
        for i in range(need):
            j = i + int(rnd() * (52 - i))
            d[i], d[j] = d[j], d[i]
        return d

    def draw_as_dealt(self, deals: int) -> None:
        """Draw from the generator what dealing the next deal ``deals`` times draws, without dealing.

        A search that plays a deal's ends without this state's copies (the
        exact solver) keeps the generator where the copies would have left it:
        each shuffled deal (:meth:`_next_deck`) draws one ``random()`` for each
        card it uses, and ``getrandbits(64 * k)`` advances the Mersenne Twister
        by exactly the two words each of ``k`` such calls takes (a test checks it).
        Nothing is drawn when the next deal's deck is given.
        """
        if deals <= 0 or self.rng is None:
            return
        if self.decks is not None and self.decks(self.deal_index + 1) is not None:
            return
        self.rng.getrandbits(64 * deals * self._cards_dealt())

    def _cards_dealt(self) -> int:
        """Cards a deal uses: five a hand and the turn-up (a shuffled deal draws one number for each)."""
        return 5 * self.n + 1

    def _start_deal(self) -> None:
        n = self.n
        deck = self._next_deck(self._cards_dealt())
        hands = [0] * n
        dealer = self.dealer
        pos = 0
        for k in self.pattern:
            for i in range(1, n + 1):
                seat = (dealer + i) % n
                h = hands[seat]
                for c in deck[pos:pos + k]:
                    h |= 1 << c
                hands[seat] = h
                pos += k
        self.hands = hands
        turn_up = deck[pos]
        self.turn_up = turn_up
        trump = turn_up // 13
        self.trump = trump
        tables = TABLES[trump]
        self._trank = tables.trump_rank
        self._strength = tables.strength
        self._follow = tables.follow
        self._allow = tables.allow_at_will if self.trump_at_will else tables.allow
        self.deal_points = [0] * self.nsides
        self.side_tricks = [0] * self.nsides
        self.trick_winners: list[int] = []
        self.hi_rank = 0
        self.hi_seat = -1
        self.rob_seat = -1
        self.robbed_by = -1
        self.jinked_by = -1
        self.trick_len = 0
        self.leader = (dealer + 1) % n  # set again after the rob decision; a clone needs every slot
        self.lead_card = -1
        self.best = -1
        self.best_seat = -1
        self._row: tuple[int, ...] = ()
        if self.robbing and turn_up % 13 == 12:
            # docs/games.md 1.4: an ace turned up; the dealer decides before anything else.
            self.phase = _ROB_DEALER
            self.to_act = dealer
            return
        if self.robbing:
            ace_bit = 1 << tables.ace
            for seat in range(n):
                if hands[seat] & ace_bit:
                    self.rob_seat = seat
                    break
        self._after_rob_decision()

    def _after_rob_decision(self) -> None:
        eldest = (self.dealer + 1) % self.n
        self.to_act = eldest
        self.leader = eldest
        self.phase = _JINK if self.jink else _PLAY

    # --- the state API -------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal actions of ``to_act``, ascending (the readable engine's order); empty when over."""
        phase = self.phase
        if phase == _PLAY:
            seat = self.to_act
            hand = self.hands[seat]
            if self.trick_len:
                led = self.lead_card
                mask = hand & self._allow[led] if hand & self._follow[led] else hand
            else:
                mask = hand
            acts = bits(mask)
            if seat == self.rob_seat:
                acts.extend(ROB + c for c in bits(hand))
            return acts
        if phase == _ROB_DEALER:
            acts = [ROB + c for c in bits(self.hands[self.to_act])]
            acts.append(PASS_ROB)
            return acts
        if phase == _JINK:
            return [JINK, PASS_JINK]
        return []

    def apply(self, action: int) -> None:
        """Apply a legal ``action`` (unchecked) for ``to_act``; a finished deal deals the next one."""
        if action < ROB:
            self._play(action)
        elif action < PASS_ROB:
            self._rob(action - ROB)
        elif action == PASS_ROB:
            self._after_rob_decision()
        elif action == JINK:
            self.jinked_by = self.to_act
            self.phase = _PLAY
            self.to_act = self.leader
        else:
            if self.to_act == self.dealer:
                self.phase = _PLAY
                self.to_act = self.leader
            else:
                self.to_act = (self.to_act + 1) % self.n

    def _rob(self, buried: int) -> None:
        seat = self.to_act
        self.hands[seat] = (self.hands[seat] & ~(1 << buried)) | (1 << self.turn_up)
        self.robbed_by = seat
        self.rob_seat = -1
        if self.phase == _ROB_DEALER:
            self._after_rob_decision()
        # A holder's rob is followed by their play in the same turn: to_act stays.

    def _play(self, c: int) -> None:
        seat = self.to_act
        self.hands[seat] ^= 1 << c
        if seat == self.rob_seat:
            # Their first turn has passed: the right to rob is gone (docs/games.md 1.4).
            self.rob_seat = -1
        if self.trick_len == 0:
            self.lead_card = c
            self._row = row = self._strength[c]
            self.best = row[c]
            self.best_seat = seat
            self.leader = seat
            self.trick_len = 1
        else:
            s = self._row[c]
            if s > self.best:
                self.best = s
                self.best_seat = seat
            self.trick_len += 1
        if self.trick_len == self.n:
            self._finish_trick()
        else:
            self.to_act = (seat + 1) % self.n

    def _finish_trick(self) -> None:
        winner = self.best_seat
        side = self.side_of[winner]
        self.side_tricks[side] += 1
        self.trick_winners.append(winner)
        if self.best > 100 and self.best - 100 > self.hi_rank:
            self.hi_rank = self.best - 100
            self.hi_seat = winner
        self.trick_len = 0
        self.leader = winner
        self.to_act = winner
        if self.score_as_won:
            self.deal_points[side] += 5
            self.scores[side] += 5
            if self.scores[side] >= self.target:
                # docs/games.md 1.6: the game ends at once; the remaining tricks are not played.
                self._finish_match((side,))
                return
        if len(self.trick_winners) == 5:
            self._end_deal()

    def _end_deal(self) -> None:
        if not self.score_as_won:
            hi_side = self.side_of[self.hi_seat] if self.hi_seat >= 0 else -1
            self.deal_points, winners = self.deal_result(self.side_tricks, hi_side, self.scores)
            for i, p in enumerate(self.deal_points):
                self.scores[i] += p
            if winners:
                self._finish_match(winners)
                return
        self.last_deal = (tuple(self.deal_points), tuple(self.trick_winners), self.hi_seat)
        self.dealer = (self.dealer + 1) % self.n
        self.deal_index += 1
        self._start_deal()

    def deal_result(self, side_tricks: Sequence[int], hi_side: int,
                    scores: Sequence[int]) -> tuple[list[int], tuple[int, ...]]:
        """Forty-Five's scoring of a played deal (docs/games.md 1.7): each side's points, and the winners if it ends
        the match (empty if not).

        ``side_tricks``: the tricks each side took; ``hi_side``: the side of the highest trump played (-1: none);
        ``scores``: the side totals before the deal's points. The state is not changed, so an exact search can
        score the deal ends it reaches without playing them on a copy.
        """
        points = [5 * t for t in side_tricks]
        if hi_side >= 0:
            points[hi_side] += self.bonus_points
        jink_side = -1 if self.jinked_by < 0 else self.side_of[self.jinked_by]
        if jink_side >= 0 and side_tricks[jink_side] == 5:
            points[jink_side] *= 2
        totals = [s + p for s, p in zip(scores, points, strict=True)]
        nsides = self.nsides
        if jink_side >= 0 and side_tricks[jink_side] != 5:
            # A failed jink ends the game; the best of the other sides win.
            best = max(totals[i] for i in range(nsides) if i != jink_side)
            return points, tuple(i for i in range(nsides) if i != jink_side and totals[i] == best)
        n = self.n
        for i in range(1, n + 1):
            side = self.side_of[(self.dealer + i) % n]
            if totals[side] >= self.target:
                return points, (side,)
        return points, ()

    def _finish_match(self, winners: tuple[int, ...]) -> None:
        self.last_deal = (tuple(self.deal_points), tuple(self.trick_winners), self.hi_seat)
        self.over = True
        self.winners = winners
        self.phase = _OVER
        self.to_act = -1

    # --- simulation ----------------------------------------------------------

    #: Action codes below this are card plays.
    PLAYS_BELOW: ClassVar[int] = ROB

    def position_key(self) -> tuple[int, ...] | None:
        """Everything the rest of the deal depends on during card play (None in another phase).

        The exact solver (:mod:`tricktable.bots.solver`) keys its transposition table on
        it: two positions with the same key play out alike within one world.
        """
        if self.phase != _PLAY:
            return None
        lead = (self.lead_card, self.best, self.best_seat) if self.trick_len else (-1, -1, -1)
        hi_side = self.side_of[self.hi_seat] if self.hi_seat >= 0 else -1
        return (*self.hands, self.to_act, self.trick_len, *lead, self.hi_rank, hi_side, self.rob_seat,
                *self.side_tricks, *self.scores)

    def trick_tables(self) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]:
        """The current trump's ``(strength, follow, allow)`` tables (:class:`TrumpTables`, the deal's options applied).

        ``strength[led][c]``: how ``c`` bids for a trick led by ``led``; a hand
        holding a card of ``follow[led]`` may play only ``hand & allow[led]``.
        For a search that plays tricks on its own copy of the hands (the
        exact solver), by the rules this state plays them by.
        """
        return self._strength, self._follow, self._allow

    def play_order(self, code: int) -> tuple[int, int]:
        """How playing ``code`` (a card) ranks now: (its strength in the current trick, 0 if it cannot win it;
        its strength as a lead). Playout policies read it; the rules do not."""
        own = self._strength[code][code]
        return (self._row[code] if self.trick_len else own), own

    def _random_trick(self, rnd: Callable[[], float]) -> int:
        """Play the current trick to its end with random legal cards, state in locals; return the plays made.

        Stops early (state written back) when a seat that may rob is to act, so
        the generic path offers the rob. Each card is ``legal_actions()[k]``
        with ``k = int(rnd() * count)``, exactly as the generic loop draws it.
        """
        n = self.n
        hands = self.hands
        seat = self.to_act
        rob_seat = self.rob_seat
        played = 0
        length = self.trick_len
        if length:
            led = self.lead_card
            row = self._row
            follow = self._follow[led]
            allow = self._allow[led]
            best = self.best
            best_seat = self.best_seat
        while True:
            if seat == rob_seat:
                self.to_act = seat
                self.trick_len = length
                if length:
                    self.best = best
                    self.best_seat = best_seat
                return played
            hand = hands[seat]
            mask = (hand & allow if hand & follow else hand) if length else hand
            k = int(rnd() * mask.bit_count())
            while k:
                mask &= mask - 1
                k -= 1
            low = mask & -mask
            hands[seat] = hand ^ low
            c = low.bit_length() - 1
            played += 1
            if length:
                strength = row[c]
                if strength > best:
                    best = strength
                    best_seat = seat
            else:
                led = c
                row = self._strength[c]
                follow = self._follow[c]
                allow = self._allow[c]
                best = row[c]
                best_seat = seat
                self.lead_card = c
                self._row = row
                self.leader = seat
            length += 1
            if length == n:
                self.trick_len = length
                self.best = best
                self.best_seat = best_seat
                self._finish_trick()
                return played
            seat += 1
            if seat == n:
                seat = 0

    def random_playout(self, rng: random.Random, *, one_deal: bool = False) -> int:
        """Play uniformly random legal actions to the end of the match; return the number of decisions.

        ``one_deal``: stop when the current deal ends instead (the next deal
        is then dealt already, or the match is over). New deals are shuffled
        from ``rng`` unless the state has a fixed deck source. Equivalent to
        ``while not over: acts = legal_actions(); apply(acts[int(rng.random()
        * len(acts))])``, which the tests check.
        """
        self.rng = rng
        rnd = rng.random
        decisions = 0
        start = self.deal_index
        # Trick play goes through _random_trick (the hot path); robs, jinks and pass_rob through the API.
        while not self.over:
            if self.phase != _PLAY or self.to_act == self.rob_seat:
                acts = self.legal_actions()
                self.apply(acts[int(rnd() * len(acts))])
                decisions += 1
            else:
                decisions += self._random_trick(rnd)
            if one_deal and self.deal_index != start:
                break
        return decisions


def from_options(game: str, options: Mapping[str, Any], *, decks: DeckSource | None = None,
                 rng: random.Random | None = None) -> SpoilFiveFast:
    """:meth:`SpoilFiveFast.from_options`, the entry point :func:`tricktable.rules.fast.new_fast` uses."""
    return SpoilFiveFast.from_options(game, options, decks=decks, rng=rng)
