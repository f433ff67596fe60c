"""Determinization: whole deals sampled consistently with what one seat has seen.

A search bot does not know the other hands. :class:`WorldSampler` turns a
:class:`rules.game.SeatView` into full deals ("worlds") that agree with
everything the seat knows, then rebuilds each one with the rules engine:

1. **What is known.** The seat's hand, every card played and by whom, the
   turn-up and every exposed card, who robbed (the turn-up is then in the
   robber's hand until played) and, to the robber, the buried card; in Cinq
   Cents the bids, the contract and, to the declarer, the kitty and the
   discards. Suits a seat showed it lacks by not following (or, to a trump
   lead in the Spoil Five family, the trumps it can no longer hold) become
   cards that seat's hidden hand may not contain.
2. **Sampling.** The unseen cards are dealt at random into *slots*: each
   other seat's hidden hand, the robber's buried card, the declarer's
   discards, the kitty, the stock. Cards with the fewest allowed slots go
   first; a dead end restarts.
3. **Rebuilding.** The sampled hands are put back into a deck in the places
   the game's deal pattern takes them from (found once by dealing a known
   deck through the engine), and the deal's public history is replayed with
   the hidden fields (buried card, discards) filled in from the sample. The
   engine checks every action again, so a world that breaks any rule the
   sampler does not model (the ace of trumps a robber must have held, a
   renege that was not allowed) is simply rejected.

Only the view and the ``rules`` package's public API are used: never the
real deal's hidden state.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.heuristic.cinq_cents import PARTNER_AND_KITTY, estimate
from rules.actions import Denomination, Discard, Rob
from rules.cards import Card
from rules.cinq_cents_play import led_suit as cinq_led_suit
from rules.cinq_cents_play import suit_of as cinq_suit_of
from rules.dealing import seats_from_eldest
from rules.errors import TricktableError
from rules.events import Discarded, Robbed
from rules.game import DealState, GameConfig, GameRules, Seat, SeatView, Trick
from rules.registry import game_rules
from rules.spoil_five_ranking import RANKINGS

#: Cards a run deals each seat per round in All Fives (rules.md 2.2).
RUN_ROUND = 3
#: Restarts of the slot assignment before a sample is given up.
ASSIGN_TRIES = 30
#: Cinq Cents: assignments drawn per world to find one that fits the bids.
BID_DRAWS = 16
#: Tricks a bid may exceed the bidder's sampled count by and still fit.
BID_SLACK = 1.0
#: Tricks (with partner and kitty) above which a sampled hand would not have passed.
PASS_CEILING = 7.0


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a deal takes its cards from the deck: hand positions per seat, the turn-up, the rest in order."""

    hands: tuple[tuple[int, ...], ...]
    turn_up: int | None
    rest: tuple[int, ...]


@dataclass(slots=True)
class Slot:
    """Unknown cards of one place: a hidden hand, a buried card, discards, the kitty, the stock."""

    name: str
    size: int
    forbidden: frozenset[Card] = frozenset()
    #: A card this slot (or its group) must hold, placed first.
    cards: list[Card] = field(default_factory=list)


def options_key(options: Mapping[str, Any]) -> str:
    """A hashable form of table options (for caches)."""
    return repr(sorted((k, repr(v)) for k, v in options.items()))


def layout_for(rules: GameRules, config: GameConfig, dealer: Seat) -> Layout:
    """The deal pattern as deck positions, found by dealing the unshuffled deck through the engine."""
    key = (rules.name, options_key(config.to_options()), dealer)
    found = _LAYOUTS.get(key)
    if found is not None:
        return found
    deck = tuple(config.deck())
    zeros = tuple(0 for _ in config.sides)
    state = rules.start_deal(config, number=1, dealer=dealer, deck=deck, scores=zeros, redeal=False)
    position = {c: i for i, c in enumerate(deck)}
    hands = tuple(tuple(sorted(position[c] for c in state.view(s, zeros).hand)) for s in range(config.players))
    turn = state.view(0, zeros).turn_up
    turn_pos = None if turn is None else position[turn]
    used = {p for h in hands for p in h} | ({turn_pos} if turn_pos is not None else set())
    layout = Layout(hands, turn_pos, tuple(p for p in range(len(deck)) if p not in used))
    _LAYOUTS[key] = layout
    return layout


_LAYOUTS: dict[tuple[str, str, Seat], Layout] = {}


# --- what a seat has shown ---------------------------------------------------

def _tricks(view: SeatView) -> list[Trick]:
    out = list(view.tricks)
    if view.current_trick is not None and view.current_trick.cards:
        out.append(view.current_trick)
    return out


def _void_rule(view: SeatView) -> Callable[[Trick, Card], frozenset[Card]]:
    """For the game of ``view``: given a trick and a card that did not follow its lead, the cards it rules out."""
    deck = game_rules(view.game).config(view.options).deck()
    if view.game in ("twenty_five", "forty_five"):
        assert view.trump is not None
        ranking = RANKINGS[view.trump]
        at_will = bool(view.options.get("trump_at_will", view.game == "forty_five"))

        def spoil(trick: Trick, card: Card) -> frozenset[Card]:
            lead = trick.cards[0]
            if ranking.is_trump(lead):
                if ranking.is_trump(card):
                    return frozenset()
                # No trump but an exempt top trump (one outranking the lead) can be left in hand (1.5).
                lead_rank = ranking.trump_rank[lead.index]
                return frozenset(c for c in ranking.trumps
                                 if not (ranking.top[c.index] and ranking.trump_rank[c.index] > lead_rank))
            if card.suit is lead.suit and not ranking.is_trump(card):
                return frozenset()
            if ranking.is_trump(card) and at_will:
                return frozenset()
            return frozenset(c for c in deck if c.suit is lead.suit and not ranking.is_trump(c))
        return spoil
    if view.game == "all_fives":
        def fives(trick: Trick, card: Card) -> frozenset[Card]:
            lead = trick.cards[0]
            return frozenset() if card.suit is lead.suit else frozenset(c for c in deck if c.suit is lead.suit)
        return fives
    trump = view.trump

    def cinq(trick: Trick, card: Card) -> frozenset[Card]:
        led = cinq_led_suit(trick, trump)
        if cinq_suit_of(card, trump) is led:
            return frozenset()
        return frozenset(c for c in deck if cinq_suit_of(c, trump) is led)
    return cinq


def shown_voids(view: SeatView) -> dict[Seat, frozenset[Card]]:
    """Per seat, the cards it can no longer hold, from its failures to follow."""
    rule = _void_rule(view)
    out: dict[Seat, frozenset[Card]] = {s: frozenset() for s in range(view.players)}
    for trick in _tricks(view):
        if not trick.cards:
            continue
        for seat, c in list(zip(trick.seats(view.players), trick.cards, strict=True))[1:]:
            ruled_out = rule(trick, c)
            if ruled_out:
                out[seat] = out[seat] | ruled_out
    return out


# --- sampling ----------------------------------------------------------------

def assign(slots: list[Slot], pool: list[Card], rng: random.Random) -> dict[str, list[Card]] | None:
    """Deal ``pool`` into ``slots`` (sizes must add up), respecting each slot's forbidden cards; None if stuck."""
    for _ in range(ASSIGN_TRIES):
        room = {s.name: s.size - len(s.cards) for s in slots}
        out = {s.name: list(s.cards) for s in slots}
        cards = list(pool)
        rng.shuffle(cards)
        allowed = {c: [s for s in slots if c not in s.forbidden] for c in cards}
        cards.sort(key=lambda c: len(allowed[c]))
        ok = True
        for c in cards:
            open_slots = [s for s in allowed[c] if room[s.name] > 0]
            if not open_slots:
                ok = False
                break
            pick = rng.choices(open_slots, weights=[room[s.name] for s in open_slots])[0]
            out[pick.name].append(c)
            room[pick.name] -= 1
        if ok:
            return out
    return None


class WorldSampler:
    """Samples full deals consistent with one :class:`SeatView`, rebuilt and replayed by the rules engine.

    ``sample(rng)`` returns the deal state at the view's decision point (the
    same seat to act, the same legal actions), or ``None`` when the sampled
    world turned out to contradict the history (the caller just samples again).
    """

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.rules = game_rules(view.game)
        self.config = self.rules.config(view.options)
        self.layout = layout_for(self.rules, self.config, view.dealer)
        self.scores_before = tuple(a - b for a, b in zip(view.scores, view.deal_points, strict=True))
        self.me = view.seat
        self.played: dict[Seat, list[Card]] = {s: [] for s in range(view.players)}
        for trick in _tricks(view):
            for seat, c in zip(trick.seats(view.players), trick.cards, strict=True):
                self.played[seat].append(c)
        self.voids = shown_voids(view)
        self.sizes = list(view.hand_sizes) or [len(view.hand)] * view.players
        self.history = list(view.history)
        self.last_filled: dict[str, list[Card]] = {}
        self._plan()

    # The per-game plan: slots to fill and the cards known to each seat's dealt hand.
    def _plan(self) -> None:
        view = self.view
        deck = list(self.config.deck())
        self.deck_size = len(deck)
        known: set[Card] = set(view.hand) | set(view.exposed)
        if view.turn_up is not None:
            known.add(view.turn_up)
        for cards in self.played.values():
            known.update(cards)
        self.slots: list[Slot] = []
        #: Cinq Cents: the other seats' bids (None: a pass), which the sampled hands should fit.
        self.bids: list[tuple[Seat, tuple[int, Denomination] | None]] = []
        #: (seat, card): a card that seat must have been dealt (the ace of trumps of a holder who robbed).
        self.must_hold: tuple[Seat, Card] | None = None
        #: Cards known to be in each seat's current hand (the robbed turn-up).
        self.held: dict[Seat, list[Card]] = {s: [] for s in range(view.players)}
        self.held[self.me] = list(view.hand)
        game = view.game
        if game in ("twenty_five", "forty_five"):
            self._plan_spoil_five(known)
        elif game == "cinq_cents":
            known.update(view.kitty)
            known.update(view.discards)
            self._plan_cinq_cents()
        for seat in range(view.players):
            if seat == self.me:
                continue
            size = self.sizes[seat] - len(self.held[seat])
            self.slots.append(Slot(f"hand{seat}", size, self.voids[seat]))
        self.pool = [c for c in deck if c not in known]
        taken = sum(s.size for s in self.slots)
        self.slots.append(Slot("rest", len(self.pool) - taken))

    def _plan_spoil_five(self, known: set[Card]) -> None:
        view = self.view
        robber = view.robbed_by
        if view.buried is not None:
            known.add(view.buried)
        if robber is None or robber == self.me:
            return
        assert view.turn_up is not None and view.trump is not None
        if view.turn_up not in self.played[robber]:
            self.held[robber].append(view.turn_up)
        self.slots.append(Slot(f"buried{robber}", 1))
        ace = RANKINGS[view.trump].ace_of_trumps
        self.must_hold = (robber, ace) if view.turn_up is not ace else None

    def _plan_cinq_cents(self) -> None:
        view = self.view
        self.bids = [(seat, bid) for seat, bid in view.bids if seat != self.me]
        contract = view.contract
        if contract is None or contract.seat == self.me:
            return
        if any(isinstance(h, Discarded) for h in self.history):
            self.slots.append(Slot("discards", 6))

    # --- one world -----------------------------------------------------------

    def sample(self, rng: random.Random) -> DealState | None:
        """One world at the view's decision point, or None if this draw contradicts the history."""
        slots = [Slot(s.name, s.size, s.forbidden, list(s.cards)) for s in self.slots]
        pool = list(self.pool)
        must = self.must_hold
        if must is not None and must[1] in pool:
            seat, ace = must
            group = [s for s in slots if s.name in (f"hand{seat}", f"buried{seat}") and ace not in s.forbidden]
            group = [s for s in group if s.size > len(s.cards)]
            if not group:
                return None
            rng.choices(group, weights=[s.size for s in group])[0].cards.append(ace)
            pool.remove(ace)
        filled = self._draw(slots, pool, rng)
        if filled is None:
            return None
        #: The last draw's slots (the kitty is ``rest`` during the bidding), for searches that need them.
        self.last_filled = filled
        try:
            deck, fills = self._deck(filled, rng)
            return self._replay(deck, fills)
        except (TricktableError, ValueError, AssertionError, IndexError):
            return None

    def _draw(self, slots: list[Slot], pool: list[Card], rng: random.Random) -> dict[str, list[Card]] | None:
        """An assignment of the unseen cards; in Cinq Cents the one of a few that best fits the bids."""
        if not self.bids:
            return assign(slots, pool, rng)
        best: dict[str, list[Card]] | None = None
        best_misfit = math.inf
        for _ in range(BID_DRAWS):
            filled = assign(slots, pool, rng)
            if filled is None:
                continue
            misfit = self._bid_misfit(filled)
            if misfit < best_misfit:
                best, best_misfit = filled, misfit
            if misfit == 0:
                break
        return best

    def _bid_misfit(self, filled: dict[str, list[Card]]) -> float:
        """How far the sampled hands are from the bids made with them (0: every bid is plausible).

        A seat that bid ``n`` in a denomination should count about ``n``
        tricks there with its partner's and the kitty's help (the heuristic's
        own count, :func:`bots.heuristic.cinq_cents.estimate`); a seat that
        passed should not count well over six anywhere.
        """
        misfit = 0.0
        declarer = self.view.contract.seat if self.view.contract is not None else None
        for seat, bid in self.bids:
            hand = self.played[seat] + self.held[seat] + filled.get(f"hand{seat}", [])
            if bid is None:
                best = max(estimate(hand, d) for d in Denomination) + PARTNER_AND_KITTY
                misfit += max(0.0, best - PASS_CEILING)
            else:
                tricks, denomination = bid
                help_ = PARTNER_AND_KITTY - (1.0 if seat == declarer else 0.0)  # the declarer kept the kitty's best
                misfit += max(0.0, tricks - BID_SLACK - (estimate(hand, denomination) + help_))
        return misfit

    def _dealt(self, filled: dict[str, list[Card]], rng: random.Random
               ) -> tuple[dict[Seat, list[Card]], list[Card], dict[str, Any]]:
        """Each seat's dealt cards, the cards for the rest positions, and hidden action fields."""
        view = self.view
        fills: dict[str, Any] = {}
        dealt: dict[Seat, list[Card]] = {}
        for seat in range(view.players):
            hand = self.held[seat] + (filled.get(f"hand{seat}", []) if seat != self.me else [])
            dealt[seat] = list(self.played[seat]) + hand
        rest = list(filled["rest"])
        robber = view.robbed_by
        if robber is not None and view.game in ("twenty_five", "forty_five"):
            buried = view.buried if robber == self.me else filled[f"buried{robber}"][0]
            assert buried is not None and view.turn_up is not None
            dealt[robber] = [c for c in dealt[robber] if c is not view.turn_up] + [buried]
            fills["rob"] = buried
        contract = view.contract
        if view.game == "cinq_cents" and contract is not None:
            d = contract.seat
            if d == self.me:
                kitty = list(view.kitty)
                discards = list(view.discards)
                rest = kitty
            else:
                discards = filled.get("discards", [])
                total = dealt[d] + discards
                if not discards:  # before the discard only the declarer acts: not our decision point
                    raise ValueError("no world before the declarer's discard")
                rng.shuffle(total)
                kitty, dealt[d] = total[:6], total[6:]
                rest = kitty
            if discards:
                fills["discard"] = tuple(sorted(discards, key=lambda c: c.index))
            dealt[d] = [c for c in dealt[d] + discards if c not in kitty] if d == self.me else dealt[d]
        for cards in dealt.values():
            rng.shuffle(cards)
        return dealt, rest, fills

    def _deck(self, filled: dict[str, list[Card]], rng: random.Random) -> tuple[list[Card], dict[str, Any]]:
        view = self.view
        layout = self.layout
        dealt, rest, fills = self._dealt(filled, rng)
        deck: list[Card | None] = [None] * self.deck_size
        rest_positions = list(layout.rest)
        if layout.turn_up is not None:
            assert view.turn_up is not None
            deck[layout.turn_up] = view.turn_up
        rounds = max(0, len(view.exposed) - 1) if view.game == "all_fives" else 0
        extra: dict[Seat, list[int]] = {s: [] for s in range(view.players)}
        cursor = 0
        for r in range(rounds):
            for seat in seats_from_eldest(view.dealer, view.players):
                extra[seat].extend(rest_positions[cursor:cursor + RUN_ROUND])
                cursor += RUN_ROUND
            deck[rest_positions[cursor]] = view.exposed[r + 1]
            cursor += 1
        for seat in range(view.players):
            positions = list(layout.hands[seat]) + extra[seat]
            cards = dealt[seat]
            if len(cards) != len(positions):
                raise ValueError(f"seat {seat}: {len(cards)} cards for {len(positions)} places")
            for p, c in zip(positions, cards, strict=True):
                deck[p] = c
        left = rest_positions[cursor:]
        if len(rest) != len(left):
            raise ValueError("rest does not fit")
        for p, c in zip(left, rest, strict=True):
            deck[p] = c
        out = [c for c in deck if c is not None]
        if len(out) != len(deck):
            raise ValueError("deck has holes")
        return out, fills

    def _replay(self, deck: Sequence[Card], fills: dict[str, Any]) -> DealState | None:
        view = self.view
        state = self.rules.start_deal(self.config, number=view.deal_number, dealer=view.dealer, deck=deck,
                                      scores=self.scores_before, redeal=bool(view.extras.get("redeal", False)))
        for entry in self.history:
            action = entry.action  # None: a card this seat may not see, filled by this world
            if action is None:
                action = Rob(card=fills["rob"]) if isinstance(entry, Robbed) else Discard(cards=fills["discard"])
            state = state.apply(action, entry.seat)
        if state.to_act != view.seat:
            return None
        legal = state.legal_actions()
        if len(legal) != len(view.legal_actions) or (len(legal) < 100 and set(legal) != set(view.legal_actions)):
            return None
        return state
