"""Determinization: whole deals sampled consistently with what one seat has seen.

A seat does not know the other hands; a search over them needs *worlds*:
full deals that agree with everything the seat knows, like OpenSpiel's
``ResampleFromInfostate``. :class:`DealSampler` turns a
:class:`tricktable.rules.game.SeatView` into such worlds, deterministically given the
``random.Random`` passed in:

1. **What is known.** The seat's hand, every card played and by whom, the
   turn-up and every exposed card, who robbed (the turn-up is then in the
   robber's hand until played) and, to the robber, the buried card; in Cinq
   Cents the contract and, to the declarer, the kitty and the discards. A
   seat that played a card another card in its hand would have made illegal
   (asked of the game's own follow rule, its definition's ``follow_rule``) cannot hold
   that other card.
2. **Sampling.** The unseen cards are dealt at random into *slots*: each
   other seat's hidden hand, the robber's buried card, the declarer's
   discards, the kitty, the stock. Cards with the fewest allowed slots go
   first; a dead end restarts. An optional ``fit`` (a bot's reading of the
   bids, say) picks, among a few draws, the one whose hands fit best.
3. **The world.** The hands are put back into a deck at the positions the
   engine deals them from (found by dealing a numbered deck through the
   engine), and the deal's actions are the view's history with the hidden
   fields (buried card, discards) filled in: a :class:`World`.

A world is replayed by the readable engine (:meth:`DealSampler.sample`,
every action checked again, so a world that breaks a rule the sampler does
not model is refused) or by the fast path (:meth:`DealSampler.fast`, about
twenty times cheaper, for searches that simulate many deals).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tricktable.rules.actions import Action, Discard, Rob
from tricktable.rules.cards import Card
from tricktable.rules.cinq_cents import DISCARD_SIZE
from tricktable.rules.dealing import seats_from_eldest
from tricktable.rules.errors import TricktableError
from tricktable.rules.events import ActionEvent, Discarded, Robbed
from tricktable.rules.fast import FastEngine, FastState, fast_engine
from tricktable.rules.game import DealState, GameConfig, GameRules, Seat, SeatView, Trick
from tricktable.rules.registry import game_definition, game_rules
from tricktable.rules.spoil_five_ranking import RANKINGS

#: Cards a run deals each seat per round in All Fives (docs/games.md 2.2).
RUN_ROUND = 3
#: Restarts of the slot assignment before a draw is given up.
ASSIGN_TRIES = 30
#: Draws compared per world when the sampler has a ``fit`` to prefer some hands.
FIT_DRAWS = 16

#: Given each other seat's whole dealt hand (cards played, held and drawn), how badly it fits what the seat did.
Fit = Callable[[Mapping[Seat, Sequence[Card]]], float]


@dataclass(frozen=True, slots=True)
class World:
    """One sampled deal: its deck (top card first) and its actions so far, hidden fields filled in."""

    deck: tuple[Card, ...]
    actions: tuple[tuple[Seat, Action], ...]


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
    #: Cards already placed in this slot.
    cards: list[Card] = field(default_factory=list)


def layout_for(rules: GameRules, config: GameConfig, dealer: Seat) -> Layout:
    """The deal pattern as deck positions, found by dealing the unshuffled deck through the engine (cached)."""
    key = (rules.name, repr(sorted(config.to_options().items())), dealer)
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


def shown_voids(view: SeatView) -> dict[Seat, frozenset[Card]]:
    """Per seat, the cards it can no longer hold: each would have made one of its plays illegal."""
    definition = game_definition(view.game)
    follows = definition.follow_rule(view)
    deck = definition.rules.config(view.options).deck()
    out: dict[Seat, frozenset[Card]] = {s: frozenset() for s in range(view.players)}
    for trick in _tricks(view):
        for position, (seat, c) in enumerate(zip(trick.seats(view.players), trick.cards, strict=True)):
            if position == 0:
                continue
            before = Trick(leader=trick.leader, cards=trick.cards[:position], named_suit=trick.named_suit)
            ruled_out = frozenset(x for x in deck if x is not c and not follows(before, c, x))
            if ruled_out:
                out[seat] = out[seat] | ruled_out
    return out


# --- sampling ----------------------------------------------------------------

def assign(slots: list[Slot], pool: list[Card], rng: random.Random) -> dict[str, list[Card]] | None:
    """Deal ``pool`` into ``slots`` (sizes must add up), respecting each slot's forbidden cards; None if stuck.

    Cards with the fewest allowed slots go first, each to an open allowed
    slot drawn in proportion to its room; a dead end starts again (at most
    :data:`ASSIGN_TRIES` times). This is the cost of a world, so the
    allowed slots are worked out once per call, not once per try.
    """
    allowed = {c: [i for i, s in enumerate(slots) if c not in s.forbidden] for c in pool}
    rnd = rng.random
    for _ in range(ASSIGN_TRIES):
        room = [s.size - len(s.cards) for s in slots]
        out = [list(s.cards) for s in slots]
        cards = list(pool)
        rng.shuffle(cards)
        cards.sort(key=lambda c: len(allowed[c]))
        for c in cards:
            open_slots = [i for i in allowed[c] if room[i] > 0]
            if not open_slots:
                break
            pick = rnd() * sum(room[i] for i in open_slots)
            for i in open_slots:
                pick -= room[i]
                if pick < 0:
                    break
            out[i].append(c)
            room[i] -= 1
        else:
            return {s.name: cards for s, cards in zip(slots, out, strict=True)}
    return None


class DealSampler:
    """Samples whole deals consistent with one :class:`SeatView` (see the module docstring).

    ``draw(rng)`` gives a :class:`World` or None (the draw was stuck);
    ``sample(rng)`` the readable engine's state at the view's decision point,
    ``fast(world, rng)`` the fast path's, each None when the world
    contradicts the history (the caller just draws again).

    Raises:
        ValueError: for a view the rules could not have made (a rob without a
            turn-up, a Spoil Five view without trump).
    """

    def __init__(self, view: SeatView, *, fit: Fit | None = None) -> None:
        self.view = view
        self.fit = fit
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
        self.history = view.history
        self._fast_options: dict[str, Any] = {**self.config.to_options(), "first_dealer": view.dealer}
        self._legal_codes: set[int] | None = None
        self._engine: FastEngine | None = None
        self._plan()

    # The plan: slots to fill and the cards known to each seat's dealt hand.
    def _plan(self) -> None:
        view = self.view
        deck = list(self.config.deck())
        self.deck_size = len(deck)
        known: set[Card] = set(view.hand) | set(view.exposed) | set(view.kitty) | set(view.discards)
        if view.turn_up is not None:
            known.add(view.turn_up)
        if view.buried is not None:
            known.add(view.buried)
        for cards in self.played.values():
            known.update(cards)
        self.slots: list[Slot] = []
        #: (seat, card): a card that seat must have been dealt (the ace of trumps of a holder who robbed).
        self.must_hold: tuple[Seat, Card] | None = None
        #: Cards known to be in each seat's current hand (the robbed turn-up).
        self.held: dict[Seat, list[Card]] = {s: [] for s in range(view.players)}
        self.held[self.me] = list(view.hand)
        robber = view.robbed_by
        if robber is not None and robber != self.me:
            self._plan_rob(robber)
        contract = view.contract
        if contract is not None and contract.seat != self.me and any(isinstance(e, Discarded) for e in self.history):
            self.slots.append(Slot("discards", DISCARD_SIZE))
        for seat in range(view.players):
            if seat != self.me:
                self.slots.append(Slot(f"hand{seat}", self.sizes[seat] - len(self.held[seat]), self.voids[seat]))
        self.pool = [c for c in deck if c not in known]
        self.slots.append(Slot("rest", len(self.pool) - sum(s.size for s in self.slots)))

    def _plan_rob(self, robber: Seat) -> None:
        view = self.view
        if view.turn_up is None or view.trump is None:
            raise ValueError(f"seat {robber} robbed, yet the view shows no turn-up and trump")
        if view.turn_up not in self.played[robber]:
            self.held[robber].append(view.turn_up)
        self.slots.append(Slot(f"buried{robber}", 1))
        ace = RANKINGS[view.trump].ace_of_trumps
        self.must_hold = (robber, ace) if view.turn_up is not ace else None

    # --- one world -----------------------------------------------------------

    def draw(self, rng: random.Random) -> World | None:
        """One world: a deck and the deal's actions; None when the draw got stuck."""
        slots = [Slot(s.name, s.size, s.forbidden, list(s.cards)) for s in self.slots]
        pool = list(self.pool)
        must = self.must_hold
        if must is not None and must[1] in pool:
            seat, ace = must
            group = [s for s in slots if s.name in (f"hand{seat}", f"buried{seat}")
                     and ace not in s.forbidden and s.size > len(s.cards)]
            if not group:
                return None
            rng.choices(group, weights=[s.size for s in group])[0].cards.append(ace)
            pool.remove(ace)
        filled = self._fill(slots, pool, rng)
        if filled is None:
            return None
        return self._world(filled, rng)

    def sample(self, rng: random.Random) -> DealState | None:
        """One world replayed by the readable engine, at the view's decision point; None if it does not fit."""
        world = self.draw(rng)
        return None if world is None else self.replay(world)

    def replay(self, world: World) -> DealState | None:
        """``world`` replayed by the readable engine (every action checked); None when the history breaks a rule."""
        view = self.view
        try:
            state = self.rules.start_deal(self.config, number=view.deal_number, dealer=view.dealer,
                                          deck=world.deck, scores=self.scores_before,
                                          redeal=bool(view.extras.get("redeal", False)))
            for seat, action in world.actions:
                state = state.apply(action, seat)
        except TricktableError:
            return None
        if state.to_act != view.seat:
            return None
        legal = state.legal_actions()
        if len(legal) != len(view.legal_actions) or (len(legal) < 100 and set(legal) != set(view.legal_actions)):
            return None
        return state

    def fast(self, world: World, rng: random.Random, *, must_allow: Sequence[int] | None = None) -> FastState | None:
        """``world`` as a fast-path state at the view's decision point (later deals shuffled from ``rng``).

        None when the replayed history does not leave the view's seat to act
        with the view's legal actions (a rule the sampler does not model).
        With ``must_allow``, only those codes are checked to be legal: a
        Cinq Cents declarer's 8,008 discards are not worth listing in every
        world when the search tries a few of them.
        """
        view = self.view
        engine = self.fast_engine()
        first = [c.index for c in world.deck]
        state = engine.start(view.game, self._fast_options, decks=lambda i: first if i == 0 else None, rng=rng)
        scores = state.scores
        scores[:] = self.scores_before
        encode = engine.encode
        for seat, action in world.actions:
            code = encode(action)
            if state.to_act != seat or not state.is_legal(code):
                return None
            state.apply(code)
        if state.to_act != view.seat:
            return None
        if must_allow is not None:
            return state if all(state.is_legal(code) for code in must_allow) else None
        return state if set(state.legal_actions()) == self.legal_codes() else None

    def legal_codes(self) -> set[int]:
        """The view's legal actions as fast-path codes."""
        if self._legal_codes is None:
            encode = self.fast_engine().encode
            self._legal_codes = {encode(a) for a in self.view.legal_actions}
        return self._legal_codes

    def fast_engine(self) -> FastEngine:
        """The game's fast path (looked up once per sampler: a search asks for it in every world).

        Raises:
            ValueError: the game has no fast path.
        """
        if self._engine is None:
            self._engine = fast_engine(self.view.game)
        return self._engine

    def _fill(self, slots: list[Slot], pool: list[Card], rng: random.Random) -> dict[str, list[Card]] | None:
        """An assignment of the unseen cards; with a ``fit``, the best fitting of a few."""
        if self.fit is None:
            return assign(slots, pool, rng)
        best: dict[str, list[Card]] | None = None
        best_misfit = math.inf
        for _ in range(FIT_DRAWS):
            filled = assign(slots, pool, rng)
            if filled is None:
                continue
            misfit = self.fit({s: self.played[s] + self.held[s] + filled[f"hand{s}"]
                               for s in range(self.view.players) if s != self.me})
            if misfit < best_misfit:
                best, best_misfit = filled, misfit
            if misfit == 0:
                break
        return best

    def _dealt(self, filled: dict[str, list[Card]], rng: random.Random
               ) -> tuple[dict[Seat, list[Card]], list[Card], dict[str, Any]] | None:
        """Each seat's dealt cards, the cards for the rest positions, and the hidden action fields."""
        view = self.view
        fills: dict[str, Any] = {}
        dealt: dict[Seat, list[Card]] = {}
        for seat in range(view.players):
            drawn = filled[f"hand{seat}"] if seat != self.me else []
            dealt[seat] = self.played[seat] + self.held[seat] + drawn
        rest = list(filled["rest"])
        robber = view.robbed_by
        if robber is not None:
            buried = view.buried if robber == self.me else filled[f"buried{robber}"][0]
            if buried is None or view.turn_up is None:
                raise ValueError(f"seat {robber} robbed: the view lacks the turn-up or, to the robber, the buried card")
            dealt[robber] = [c for c in dealt[robber] if c is not view.turn_up] + [buried]
            fills["rob"] = buried
        contract = view.contract
        if contract is not None:
            d = contract.seat
            if d == self.me:
                kitty, discards = list(view.kitty), list(view.discards)
                dealt[d] = [c for c in dealt[d] + discards if c not in kitty]
            else:
                discards = filled.get("discards", [])
                if not discards:  # before the discard only the declarer acts: not our decision point
                    return None
                total = dealt[d] + discards
                rng.shuffle(total)
                kitty, dealt[d] = total[:len(discards)], total[len(discards):]
            rest = kitty
            if discards:
                fills["discard"] = tuple(sorted(discards, key=lambda c: c.index))
        for cards in dealt.values():
            rng.shuffle(cards)
        return dealt, rest, fills

    def _world(self, filled: dict[str, list[Card]], rng: random.Random) -> World | None:
        view = self.view
        layout = self.layout
        found = self._dealt(filled, rng)
        if found is None:
            return None
        dealt, rest, fills = found
        deck: list[Card | None] = [None] * self.deck_size
        rest_positions = list(layout.rest)
        if layout.turn_up is not None:
            deck[layout.turn_up] = view.turn_up
        # All Fives: each run of the pack dealt 3 more cards each from the rest, then exposed one.
        rounds = max(0, len(view.exposed) - 1)
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
                return None
            for p, c in zip(positions, cards, strict=True):
                deck[p] = c
        left = rest_positions[cursor:]
        if len(rest) != len(left):
            return None
        for p, c in zip(left, rest, strict=True):
            deck[p] = c
        out = tuple(c for c in deck if c is not None)
        if len(out) != len(deck):
            return None
        return World(deck=out, actions=tuple((event.seat, _action(event, fills)) for event in self.history))


def _action(event: ActionEvent, fills: Mapping[str, Any]) -> Action:
    """A history event as an action, a field the seat may not see (buried card, discards) taken from the world."""
    action = event.action
    if action is not None:
        return action
    return Rob(card=fills["rob"]) if isinstance(event, Robbed) else Discard(cards=fills["discard"])


def resample(view: SeatView, rng: random.Random, *, tries: int = 100) -> DealState | None:
    """A whole deal consistent with ``view``, at its decision point (OpenSpiel's ``ResampleFromInfostate``).

    None when ``tries`` draws all failed (a view contradicting itself, in practice never).
    """
    sampler = DealSampler(view)
    for _ in range(tries):
        state = sampler.sample(rng)
        if state is not None:
            return state
    return None


__all__ = ["DealSampler", "Fit", "Layout", "Slot", "World", "assign", "layout_for", "resample",
           "shown_voids"]

