"""The exact solver: its values are plain minimax's, and the search it serves finds a forced win."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.bots.support import ENDGAME_OPTIONS, ENDGAME_TRICKS, GAMES, endgame_deck
from tricktable.bots.bid_fit import bid_fit
from tricktable.bots.fast_worlds import WorldStream, win_bonus
from tricktable.bots.playout import cards_left
from tricktable.bots.search import SearchBot
from tricktable.bots.solver import DealSolver, deal_value, solved_value
from tricktable.bots.world_rate import decision_points
from tricktable.client_sdk.bot import action_of
from tricktable.rules.actions import Play
from tricktable.rules.cards import card
from tricktable.rules.fast import FastState, new_fast
from tricktable.rules.fast.cinq_cents import DENOMINATIONS, JOKER_LEAD, PASS, SHUFFLE_DRAWS, CinqCentsFast
from tricktable.rules.fast.codec import encode
from tricktable.rules.fast.spoil_five import SpoilFiveFast
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks

#: Tables beyond each game's default: more than two sides (the paranoid objective) and a three-player All Fives.
LAYOUTS: tuple[tuple[str, dict[str, Any]], ...] = (
    *((game, {}) for game in GAMES),
    ("twenty_five", {"players": 6, "sides": 3}),
    ("forty_five", {"jink": True}),
    ("all_fives", {"players": 3}),
)


def _position(game: str, options: dict[str, Any], seed: int, left: int) -> FastState | None:
    """A random match's card play with at most ``left`` cards in the hands (None if the first deal ended first)."""
    resolved = new_match(game, options, seed=str(seed)).to_record()["options"]
    rng = random.Random(seed)
    state = new_fast(game, resolved, rng=rng)
    while not state.over and state.deal_index == 0:
        acts = state.legal_actions() if game != "cinq_cents" else None
        if state.position_key() is not None and cards_left(state) <= left:
            return state
        if acts is None:
            state.apply(state.random_action(rng.random))  # type: ignore[attr-defined]  # Cinq Cents' discards
        else:
            state.apply(acts[int(rng.random() * len(acts))])
    return None


def _minimax(state: FastState, deal: int, sides: Sequence[int], side: int, before: Sequence[int],
             bonus: float) -> float:
    """Every line of play, no pruning, no table: the definition the solver must meet."""
    if state.over or state.deal_index != deal:
        return deal_value(before, state, side, bonus)
    values = []
    for act in state.legal_actions():
        child = state.clone()
        child.apply(act)
        values.append(_minimax(child, deal, sides, side, before, bonus))
    return max(values) if sides[state.to_act] == side else min(values)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 10**6), side=st.integers(0, 2),
       bonus=st.sampled_from([0.0, 10.0]), near_target=st.booleans())
def test_the_solved_value_is_the_minimax_value_of_small_positions(layout: tuple[str, dict[str, Any]], seed: int,
                                                                  side: int, bonus: float, near_target: bool) -> None:
    game, options = layout
    players = new_match(game, options, seed=str(seed)).config.players
    left = 9 if players <= 3 else 8
    state = _position(game, options, seed, left)
    assume(state is not None)
    assert state is not None
    if near_target and isinstance(state, SpoilFiveFast):  # lines that end the match
        state.scores[:] = [random.Random(seed).randrange(state.target) for _ in state.scores]
    nsides = len(state.scores)
    sides = tuple(s % nsides for s in range(players))
    side %= nsides
    before = list(state.scores)
    key = state.position_key()
    solver = DealSolver(sides, side, before, bonus)
    assert solver.value(state) == _minimax(state.clone(), state.deal_index, sides, side, before, bonus)
    assert state.position_key() == key  # the state asked about is left as it was
    assert solver.nodes > 0


#: Spoil Five tables the dedicated search must treat as the generic one does: sides, jinks, trumping at will.
SPOIL_FIVE_LAYOUTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("twenty_five", {}),
    ("forty_five", {}),
    ("forty_five", {"jink": True}),
    ("twenty_five", {"trump_at_will": True}),
    ("twenty_five", {"players": 6, "sides": 3}),
    ("forty_five", {"players": 3, "sides": 3}),
    ("forty_five", {"players": 2, "sides": 2}),
)


def _with_generator(state: FastState, rng: random.Random) -> FastState:
    """A copy of ``state`` drawing its later deals from a copy of ``rng``."""
    copy = state.clone()
    copy.rng = random.Random()  # type: ignore[attr-defined]
    copy.rng.setstate(rng.getstate())  # type: ignore[attr-defined]
    return copy


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=st.sampled_from(SPOIL_FIVE_LAYOUTS), seed=st.integers(0, 10**6), side=st.integers(0, 2),
       bonus=st.sampled_from([0.0, 10.0]), per_hand=st.integers(1, 4), near_target=st.booleans())
def test_the_dedicated_spoil_five_search_is_the_generic_search_position_for_position(
        layout: tuple[str, dict[str, Any]], seed: int, side: int, bonus: float, per_hand: int,
        near_target: bool) -> None:
    """Every candidate of a position solved in turn by one solver, as a world's are: the two searches agree on
    each value, on the positions searched, on the table they leave and on what they drew from the generator."""
    game, options = layout
    players = new_match(game, options, seed=str(seed)).config.players
    state = _position(game, options, seed, per_hand * players)
    assume(state is not None)
    assert isinstance(state, SpoilFiveFast)
    assume(state.rob_seat < 0)
    rng = random.Random(seed)
    if near_target:  # lines that end the match: a side reaching the target, a failed jink's end
        state.scores[:] = [rng.randrange(state.target) for _ in state.scores]
    nsides = len(state.scores)
    sides = tuple(s % nsides for s in range(players))
    side %= nsides
    _solve_every_candidate_both_ways(state, sides, side, bonus, rng, in_card_play=False)


def _solve_every_candidate_both_ways(state: FastState, sides: Sequence[int], side: int, bonus: float,
                                     rng: random.Random, *, in_card_play: bool = True) -> bool:
    """Every candidate of ``state`` solved in turn by one dedicated and one generic solver, as a world's are: they
    agree on each value, on the positions searched, on the table they leave and on what they drew from the
    generator (each drawing from its own copy of ``rng``). True when the searches drew from it (dealt again).
    ``in_card_play``: each candidate must also leave card play to solve (a position of a real deal's last tricks)."""
    before = list(state.scores)
    solvers = {kind: DealSolver(sides, side, before, bonus, dedicated=kind) for kind in (True, False)}
    copies = {kind: _with_generator(state, rng) for kind in solvers}
    for act in state.legal_actions():
        values = {}
        for kind, solver in solvers.items():
            child = copies[kind].clone()
            child.apply(act)
            assert not in_card_play or child.position_key() is not None, "the candidate leaves card play to solve"
            values[kind] = solver.value(child)
        assert values[True] == values[False]
        assert solvers[True].nodes == solvers[False].nodes
        assert solvers[True].table == solvers[False].table
        assert copies[True].rng.getstate() == copies[False].rng.getstate()  # type: ignore[attr-defined]
    return bool(copies[True].rng.getstate() != rng.getstate())  # type: ignore[attr-defined]


def _cinq_cents_position(seed: int, left: int, target: int) -> CinqCentsFast | None:
    """A random Cinq Cents match's card play with ``left`` cards or fewer in the hands (at least two, so that no
    candidate ends the deal), the match's target ``target``."""
    state = _position("cinq_cents", {"target": target}, seed, max(2, left))
    assert state is None or isinstance(state, CinqCentsFast)
    return state


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), side=st.integers(0, 1), bonus=st.sampled_from([0.0, 10.0]),
       left=st.integers(2, 16), target=st.sampled_from([1000, 200]), near_target=st.booleans())
def test_the_dedicated_cinq_cents_search_is_the_generic_search_position_for_position(
        seed: int, side: int, bonus: float, left: int, target: int, near_target: bool) -> None:
    """Random bids reach every denomination (no-trump most often); ``left`` not a multiple of four starts the
    solve inside a trick; scores near the target give lines that end the match."""
    state = _cinq_cents_position(seed, left, target)
    assume(state is not None)
    assert state is not None
    rng = random.Random(seed)
    if near_target:
        state.scores[:] = [rng.randrange(-200, state.target) for _ in state.scores]
    _solve_every_candidate_both_ways(state, (0, 1, 0, 1), side, bonus, rng)


def test_the_cinq_cents_comparison_covers_every_denomination_joker_leads_and_match_ends() -> None:
    """The same comparison over fixed seeds, counting what it covered: each denomination, a joker to lead naming a
    suit at no-trump, positions inside a trick, deal ends that deal again and deal ends that end the match."""
    scored = CinqCentsFast.deal_result
    match_ends = 0

    def counting(self: CinqCentsFast, won: Sequence[int], scores: Sequence[int]) -> tuple[list[int], tuple[int, ...]]:
        nonlocal match_ends
        points, winners = scored(self, won, scores)
        match_ends += bool(winners)
        return points, winners

    denominations: set[int] = set()
    joker_leads = inside_trick = dealt_again = 0
    with mock.patch.object(CinqCentsFast, "deal_result", counting):
        for seed in range(240):
            state = _cinq_cents_position(seed, 16 - seed % 15, (1000, 200)[seed % 2])
            if state is None:
                continue
            rng = random.Random(seed)
            if seed % 3:
                state.scores[:] = [rng.randrange(state.target - 150, state.target) for _ in state.scores]
            dealt_again += _solve_every_candidate_both_ways(state, (0, 1, 0, 1), seed % 2, 10.0, rng)
            assert state.contract is not None
            denominations.add(state.contract[2])
            joker_leads += any(act >= JOKER_LEAD for act in state.legal_actions())
            inside_trick += state.trick_len > 0
    assert denominations == set(range(len(DENOMINATIONS)))
    assert joker_leads >= 3 and inside_trick >= 100 and dealt_again >= 100 and match_ends >= 100


def test_the_dedicated_cinq_cents_search_is_the_generic_one_on_the_worlds_of_real_matches() -> None:
    """Worlds as `pimc-exact` draws them (fitting the bids) at the last four tricks of heuristic matches."""
    views = [view for view in decision_points("cinq_cents", "card", 120, seed="solver")
             if len(view.legal_actions) > 1 and sum(view.hand_sizes) <= 16]
    assert len(views) >= 10
    bonus = win_bonus("cinq_cents")
    for i, view in enumerate(views):
        sides = tuple(view.side_of(s) for s in range(view.players))
        for state in WorldStream(view, random.Random(i), 3, fit=bid_fit(view)):
            assert isinstance(state, CinqCentsFast)
            assert {encode("cinq_cents", a) for a in view.legal_actions} == set(state.legal_actions())
            _solve_every_candidate_both_ways(state, sides, sides[view.seat], bonus, random.Random(i))


def test_the_dedicated_search_draws_as_many_numbers_as_the_deals_the_generic_one_dealt() -> None:
    """The generic search deals the next deal at every deal end it reaches; the dedicated one draws the same."""
    state = _position("twenty_five", {}, 11, 8)
    assert isinstance(state, SpoilFiveFast)
    generator = state.rng
    assert generator is not None
    start = generator.getstate()
    DealSolver((0, 1, 0, 1), 0, list(state.scores), 0.0, dedicated=False).value(state)
    after_generic = generator.getstate()
    assert after_generic != start, "the position's search reaches deal ends"
    generator.setstate(start)
    DealSolver((0, 1, 0, 1), 0, list(state.scores), 0.0).value(state)
    assert generator.getstate() == after_generic


def test_a_second_value_of_the_same_position_comes_from_the_table() -> None:
    state = _position("forty_five", {}, 7, 12)
    assert state is not None
    solver = DealSolver((0, 1, 0, 1), 0, list(state.scores), 10.0)
    first = solver.value(state)
    nodes = solver.nodes
    assert solver.value(state) == first
    assert solver.nodes == nodes + 1  # the root's bounds are exact: one look-up, no search


def _endgame() -> SpoilFiveFast:
    """Two tricks left, seat 1 to lead with the 5 of spades (top trump) and the 2 of diamonds.

    Its partner, seat 3, holds the K of diamonds. Leading the 5 forces out
    the other side's last trumps (seat 2's 7, seat 0's 6) and wins; then the
    2 of diamonds goes to partner's king: both tricks and the match. Leading
    the 2 first lets seat 0, void in diamonds, trump it: one trick each.
    """
    deck = [c.index for c in endgame_deck()]
    state = SpoilFiveFast.from_options("twenty_five", ENDGAME_OPTIONS, decks=lambda i: deck)
    for code in ENDGAME_TRICKS:
        state.apply(card(code).index)
    return state


def test_the_solver_finds_the_forced_winning_line_of_an_endgame() -> None:
    state = _endgame()
    assert state.to_act == 1 and cards_left(state) == 8
    solver = DealSolver((0, 1, 0, 1), 1, list(state.scores), 0.0)
    values = {}
    for name in ("5S", "2D"):
        child = state.clone()
        child.apply(card(name).index)
        values[name] = solver.value(child)
    assert values == {"5S": 10.0, "2D": 0.0}  # both tricks, or one each


def test_solved_value_plays_greedily_down_to_the_threshold_then_solves() -> None:
    state = _endgame()
    state_at_start = state.clone()
    solver = DealSolver((0, 1, 0, 1), 1, list(state.scores), 0.0)
    assert solved_value(state, random.Random(0), solver, 8) == solver.value(state_at_start)


def test_the_search_plays_the_forced_win_in_a_constructed_endgame() -> None:
    """Whatever the worlds, leading the 5 of spades wins both last tricks; the search must see it."""
    match = new_match("twenty_five", ENDGAME_OPTIONS, decks=RecordedDecks([endgame_deck()]))
    for code in ENDGAME_TRICKS:
        seat = match.to_act
        assert seat is not None
        match = match.apply(Play(card=card(code)), seat)
    view = match.view(1)
    bot = SearchBot("endgame", simulations=20, solve_at=8)
    assert action_of(bot.choose_action(view)) == Play(card=card("5S"))


def test_drawing_as_dealt_leaves_the_generator_where_dealing_leaves_it() -> None:
    """Three shuffled deals' draws, skipped in one call, leave the generator as dealing them does."""
    resolved = new_match("forty_five", {"target": 200}, seed="draws").to_record()["options"]
    dealt = new_fast("forty_five", resolved, rng=random.Random(9))
    assert isinstance(dealt, SpoilFiveFast)
    skipped = _with_generator(dealt, random.Random(9))
    assert isinstance(skipped, SpoilFiveFast)
    dealt.rng = random.Random(9)
    while dealt.deal_index < 3:
        dealt.apply(dealt.legal_actions()[0])  # dealing is the only draw
    assert not dealt.over
    skipped.draw_as_dealt(3)
    assert skipped.rng is not None and dealt.rng is not None
    assert skipped.rng.getstate() == dealt.rng.getstate()


def test_drawing_as_dealt_leaves_a_cinq_cents_generator_where_dealing_leaves_it() -> None:
    """Three shuffled deals' draws (each voided by four passes: dealing is the only draw), skipped in one call."""
    dealt = CinqCentsFast(rng=random.Random(5))
    skipped = _with_generator(dealt, random.Random(5))
    assert isinstance(skipped, CinqCentsFast)
    dealt.rng = random.Random(5)
    while dealt.deal_index < 3:
        dealt.apply(PASS)
    skipped.draw_as_dealt(3)
    assert skipped.rng is not None and dealt.rng is not None
    assert skipped.rng.getstate() == dealt.rng.getstate()
    one = random.Random(5)
    for _ in range(3 * SHUFFLE_DRAWS):
        one.random()
    assert one.getstate() == dealt.rng.getstate()


def test_drawing_as_dealt_draws_nothing_when_the_next_deck_is_given() -> None:
    deck = list(range(46))
    given = CinqCentsFast(decks=lambda i: deck, rng=random.Random(5))
    start = random.Random(5).getstate()
    given.draw_as_dealt(4)
    assert given.rng is not None and given.rng.getstate() == start
