"""Cinq Cents bidding by simulation: what is each bid worth, played out in worlds like ours?

The heuristic counts tricks with fixed weights. The search bot instead asks
the sampled worlds (:class:`tricktable.rules.determinize.DealSampler`, whose hands also
fit the bids made so far: :func:`tricktable.bots.bid_fit.bid_fit`). In each world it tries passing and each legal bid
in the denominations its hand could play (:func:`candidate_denominations`),
and for each it plays the rest of the auction with the heuristic bidder at
every other seat (the opponents are often that bot, and an opponent with a
strong hand overcalls a weak bid), lets the declarer, if any, take the kitty
and discard as the heuristic does, and plays the deal out with the playout
policy. The bid's worth in that world is our side's points minus the
opponents' (docs/games.md 3.6: the contract's value won or lost, ten a trick to
the defence; 0 for a deal everyone passed). The bot makes the action of best
mean worth, every action measured on the same worlds.

A deal's play depends only on who declared in which denomination, not on
the level, so each world plays every such contract once and prices all the
levels from the same trick count.

Everything runs on the fast path (:mod:`tricktable.rules.fast.cinq_cents`): the
auction with the heuristic's own bidding rule
(:func:`tricktable.bots.heuristic.cinq_cents.bid_from_counts`, each sampled hand's
trick counts worked out once a world), the heuristic's discard, then the
playout. On the readable engine with the heuristic playing every card a bid
saw 73 worlds per CPU second; here about 700 (``python -m
tricktable.bots.world_rate``, docs/strength.md).

History of the measurement: the first version let every later seat pass
after our bid and valued passing at 0. With 6 worlds per bid it overbid (the
best of many noisy estimates) and took 16% of the points against the
heuristic; with a one-trick safety margin it was level (49.5% [44.9, 54.1],
60 pairs at target 500). With 20-40 worlds and no margin, single deals
played in duplicate against the heuristic gained 18-43 points a deal; but
that model also made sacrifice bids with worthless hands (better a failed 6
than the opponents' contract, if nobody overcalls), which the auction
played out now prices correctly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tricktable.bots.fast_worlds import FastPlayout, WorldStream, best_index, deal_value
from tricktable.bots.heuristic.cinq_cents import PARTNER_AND_KITTY, bid_from_counts, discard_for, estimate, keep_order
from tricktable.rules.actions import Action, Bid, Denomination, Discard, Pass
from tricktable.rules.cards import ALL_CARDS, SUITS, Card, Suit
from tricktable.rules.cinq_cents_bids import STANDARD_TABLE, BidTable
from tricktable.rules.cinq_cents_play import suit_of
from tricktable.rules.fast import FastState
from tricktable.rules.fast.bitset import bits
from tricktable.rules.fast.cinq_cents import BID, PASS, CinqCentsFast
from tricktable.rules.fast.codec import decode, encode
from tricktable.rules.game import SeatView
from tricktable.rules.registry import game_rules

#: Denominations whose heuristic count is this many tricks below the hand's best are not simulated.
PRUNE_WITHIN = 1.5
#: Bids simulated per denomination: up to this many tricks above the heuristic's count.
LEVELS_ABOVE = 2
#: Standard errors a bid's mean gain over passing must clear (see :func:`pick`).
SELECTION_Z = 1.0

#: Cards the declarer discards.
DISCARD = 6
#: Tricks in a Cinq Cents deal, and what the defence scores for each.
TRICKS, DEFENCE_POINTS = 10, 10

#: Every bid in the fast path's code order (``BID + k``), which is the order of value: the legal bids
#: after a standing bid of code ``BID + k`` are ``ALL_BIDS[k + 1:]``.
ALL_BIDS: tuple[Bid, ...] = tuple(b for b in (decode("cinq_cents", code) for code in range(BID, PASS))
                                  if isinstance(b, Bid))
#: A bid's denomination by the fast path's number for it (S C D H NT = 0..4).
DENOMINATIONS: tuple[Denomination, ...] = tuple(b.denomination for b in ALL_BIDS[:5])


@dataclass(frozen=True, slots=True)
class Searched:
    """A searched bid or discard and the mean value of each candidate over the worlds (the decision's note).

    Empty ``values``: nothing was compared (a single candidate).
    """

    action: Action
    values: dict[Action, float]


def contract_points(taken: int, bid: tuple[int, Denomination], table: BidTable) -> tuple[int, int]:
    """(declaring side's points, defence's points) when the declaring side took ``taken`` tricks (docs/games.md 3.6)."""
    tricks, denomination = bid
    value = table.value(tricks, denomination)
    return (value if taken >= tricks else -value), DEFENCE_POINTS * (TRICKS - taken)


def _counts(hand: Sequence[Card]) -> dict[Denomination, float]:
    """The heuristic's trick count of ``hand`` in each denomination."""
    return {d: estimate(tuple(hand), d) for d in Denomination}


def _near_best(counts: dict[Denomination, float], within: float) -> list[Denomination]:
    best = max(counts.values())
    return [d for d in Denomination if counts[d] >= best - within]


def candidate_denominations(hand: Sequence[Card], within: float = PRUNE_WITHIN) -> list[Denomination]:
    """The denominations worth simulating: the heuristic's count there is within ``within`` tricks of its best."""
    return _near_best(_counts(hand), within)


def cards_of(hand: int) -> list[Card]:
    """The cards of a fast-path hand (a bit set of card indexes)."""
    return [ALL_CARDS[i] for i in bits(hand)]


def finish_auction(state: CinqCentsFast, counts: Sequence[dict[Denomination, float] | None],
                   standing: list[tuple[int, tuple[int, Denomination]]], sides: Sequence[int]) -> None:
    """Play the auction of ``state`` to its end in place, the heuristic bidder at every seat still to speak.

    ``counts[seat]`` is that seat's heuristic trick count per denomination
    (worked out once a world: the hands do not change during the auction);
    ``standing`` the bids so far, in order, as (seat, (tricks, denomination)),
    extended with the bids made here. The bids are the heuristic bot's own
    (:func:`tricktable.bots.heuristic.cinq_cents.bid_from_counts`), so the readable
    engine's auction with that bot at those seats ends the same way
    (``tests/bots/test_search_bids.py`` checks it).
    """
    start = state.deal_index
    while state.contract is None and state.deal_index == start and not state.over:
        seat = state.to_act
        seat_counts = counts[seat]
        if seat_counts is None:
            raise ValueError(f"seat {seat} has bid already in this deal: only the seats still to speak are simulated")
        mine = sides[seat]
        bid = bid_from_counts(seat_counts, ALL_BIDS[state.bid_high + 1:],
                              [(sides[s] == mine, b) for s, b in standing])
        if bid is None:
            state.apply(PASS)
        else:
            state.apply(encode("cinq_cents", bid))
            standing.append((seat, (bid.tricks, bid.denomination)))


def declarer_tricks(state: CinqCentsFast, declarer: int, sides: Sequence[int]) -> int:
    """Tricks the declaring side took in the deal ``state`` just finished."""
    if state.last_deal is None:
        raise ValueError("no deal has finished in this match yet")
    return sum(1 for winner in state.last_deal[1] if sides[winner] == sides[declarer])


class WorldBids:
    """One sampled world on the fast path, in which every bid we might make is played out.

    The rest of the auction is the heuristic bidder's (:func:`finish_auction`),
    the declarer's discard the heuristic's, the play ``playout``'s (the
    search's own policy). Contracts reached are played once each: the play
    depends on the declarer and the denomination, not on the level bid.
    """

    def __init__(self, world: CinqCentsFast, view: SeatView, playout: FastPlayout, rng: random.Random,
                 table: BidTable) -> None:
        self.world, self.view, self.playout, self.rng, self.table = world, view, playout, rng, table
        self.sides = tuple(view.side_of(s) for s in range(view.players))
        spoken = {seat for seat, _ in view.bids} | {view.seat}
        self.counts = [None if seat in spoken else _counts(cards_of(world.hands[seat]))
                       for seat in range(view.players)]
        self.standing = [(seat, bid) for seat, bid in view.bids if bid is not None]
        self._tricks: dict[tuple[int, int], int] = {}

    def worth(self, action: Action) -> float:
        """Our side's points minus the opponents' when we take ``action`` (a bid or a pass) in this world."""
        state = self.world.clone()
        standing = list(self.standing)
        state.apply(encode("cinq_cents", action))
        if state.deal_index != self.world.deal_index:
            return 0.0  # we spoke last and everyone passed: a void deal (the next deal's auction is not ours)
        if isinstance(action, Bid):
            standing.append((self.view.seat, (action.tricks, action.denomination)))
        finish_auction(state, self.counts, standing, self.sides)
        contract = state.contract
        if contract is None:
            return 0.0  # everyone passed: a void deal
        declarer, tricks, number = contract
        denomination = DENOMINATIONS[number]
        key = (declarer, number)
        if key not in self._tricks:
            discard = discard_for(cards_of(state.hands[declarer]), denomination.suit)
            state.apply(encode("cinq_cents", Discard(cards=discard)))
            self.playout(state, self.rng, self.sides)
            self._tricks[key] = declarer_tricks(state, declarer, self.sides)
        declared, defended = contract_points(self._tricks[key], (tricks, denomination), self.table)
        ours = self.sides[declarer] == self.sides[self.view.seat]
        return float(declared - defended if ours else defended - declared)


def candidate_bids(view: SeatView) -> list[Action]:
    """Pass, and the legal bids worth simulating: in :func:`candidate_denominations`, from the lowest legal
    level up to two tricks above the heuristic's count with partner and kitty (at least one level above the
    lowest). Bids well beyond any plausible count only differ by scaring opponents off, at a larger stake."""
    counts = _counts(view.hand)
    denominations = _near_best(counts, PRUNE_WITHIN)
    lowest: dict[Denomination, int] = {}
    out: list[Action] = []
    for action in view.legal_actions:
        if isinstance(action, Pass):
            out.append(action)
        elif isinstance(action, Bid) and action.denomination in denominations:
            floor = lowest.setdefault(action.denomination, action.tricks)
            count = counts[action.denomination] + PARTNER_AND_KITTY
            if action.tricks <= max(floor + 1, math.floor(count) + LEVELS_ABOVE):
                out.append(action)
    return out


def pick(candidates: Sequence[Action], worths: Sequence[Sequence[float]], z: float = SELECTION_Z) -> Action:
    """The candidate whose gain over passing, world by world, has the best lower bound (mean - z standard errors).

    Choosing the best of many noisy means overrates it (the first version of this bot overbid that way);
    judging each bid by a lower bound on its paired gain over passing keeps a bid that only looks good
    by luck from being made. Passing's own bound is 0.
    """
    passing = next(i for i, a in enumerate(candidates) if isinstance(a, Pass))
    best, best_bound = passing, 0.0
    n = len(worths[passing])
    for i in range(len(candidates)):
        if i == passing:
            continue
        gains = [w - p for w, p in zip(worths[i], worths[passing], strict=True)]
        mean = sum(gains) / n
        spread = math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1)) / math.sqrt(n) if n > 1 else 0.0
        bound = mean - z * spread
        if bound > best_bound:
            best, best_bound = i, bound
    return candidates[best]


def choose_bid(view: SeatView, worlds: WorldStream, playout: FastPlayout, *,
               min_worlds: int = 1) -> Searched | None:
    """The bid (or pass) chosen by :func:`pick` over ``worlds`` (fast-path worlds of ``view``), with each
    candidate's mean worth (our side's deal points minus the opponents').

    None when fewer than ``min_worlds`` worlds were drawn (the caller falls back); ``worlds.drawn`` says how many.
    """
    table = _bid_table(view)
    candidates = candidate_bids(view)
    worths: list[list[float]] = [[] for _ in candidates]
    for state in worlds:
        if not isinstance(state, CinqCentsFast):
            raise TypeError(f"a Cinq Cents view sampled a {type(state).__name__}")
        here = WorldBids(state, view, playout, worlds.rng, table)
        for i, action in enumerate(candidates):
            worths[i].append(here.worth(action))
    if worlds.drawn < max(1, min_worlds):
        return None
    means = {action: sum(w) / len(w) for action, w in zip(candidates, worths, strict=True)}
    return Searched(pick(candidates, worths), means)


def _bid_table(view: SeatView) -> BidTable:
    """The table's bid values (its ``bid_values`` option, else the standard ones)."""
    return getattr(game_rules(view.game).config(view.options), "bid_values", STANDARD_TABLE)


def discard_candidates(hand: Sequence[Card], trump: Suit | None) -> list[tuple[Card, ...]]:
    """The heuristic's discard, and for each plain suit the discard that voids it (if six cards can)."""
    out = [discard_for(list(hand), trump)]
    kept_last = keep_order(list(hand), trump)
    for suit in SUITS:
        if suit is trump:
            continue
        suited = [c for c in hand if not c.is_joker and suit_of(c, trump) is suit]
        if not suited or len(suited) > DISCARD:
            continue
        rest = [c for c in kept_last if c not in suited][: DISCARD - len(suited)]
        candidate = tuple(sorted(suited + rest, key=lambda c: c.index))
        if candidate not in out:
            out.append(candidate)
    return out


def discard_actions(view: SeatView) -> list[Discard]:
    """The declarer's candidate discards (:func:`discard_candidates`) as actions."""
    if view.contract is None:
        raise ValueError("a Cinq Cents discard comes after the contract: this view has none")
    return [Discard(cards=c) for c in discard_candidates(view.hand, view.contract.denomination.suit)]


def choose_discard(view: SeatView, discards: Sequence[Discard], worlds: Iterable[FastState], playout: FastPlayout,
                   rng: random.Random) -> Searched | None:
    """The discard with the best mean deal result over ``worlds``, with each candidate's mean (None: no world drawn).

    Each candidate is played out in the same worlds with ``playout``; the result is our side's
    deal points minus the other side's (:func:`tricktable.bots.fast_worlds.deal_value`, no bonus for the match).
    """
    if len(discards) == 1:
        return Searched(discards[0], {})
    codes = [encode(view.game, d) for d in discards]
    sides = tuple(view.side_of(s) for s in range(view.players))
    mine = sides[view.seat]
    totals = [0.0] * len(discards)
    drawn = 0
    for world in worlds:
        drawn += 1
        before = list(world.scores)
        for i, code in enumerate(codes):
            state = world.clone()
            state.apply(code)
            playout(state, rng, sides)
            totals[i] += deal_value(before, state, mine, 0.0)
    if drawn == 0:
        return None
    return Searched(discards[best_index(totals)], {d: total / drawn for d, total in zip(discards, totals, strict=True)})


__all__ = [
    "ALL_BIDS",
    "DENOMINATIONS",
    "Searched",
    "WorldBids",
    "candidate_bids",
    "candidate_denominations",
    "cards_of",
    "choose_bid",
    "choose_discard",
    "contract_points",
    "declarer_tricks",
    "discard_actions",
    "discard_candidates",
    "finish_auction",
    "pick",
]
