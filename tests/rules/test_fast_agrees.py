"""The playout fast path agrees with the readable engine move for move.

Random games of every player count, side layout and option are played
through ``rules.registry.new_match`` (with :class:`RecordedDecks`) and
through :mod:`rules.fast` side by side. At every step both must name the
same seat to act and the same legal actions in the same order; after every
action the running scores must match; at every deal's end the trick
winners, the deal's points and Forty-Five's bonus seat; at the end the
winners and final scores. The action taken is drawn at random among the
legal ones, so robs, jinks, renege cases and both end rules are reached.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.actions import Action, Jink, PassJink, PassRob, Play, Rob
from rules.cards import ALL_CARDS, Card, standard_deck
from rules.fast.spoil_five import JINK, PASS_JINK, PASS_ROB, ROB, SpoilFiveFast, bits
from rules.registry import new_match
from rules.shuffle import RecordedDecks

# --- the layouts and options of section 1 ------------------------------------

#: (game, players, sides) for every layout rules.md 1.1 allows.
SPOIL_FIVE_LAYOUTS: list[tuple[str, int, int]] = [
    ("twenty_five", 4, 2), ("twenty_five", 6, 2), ("twenty_five", 6, 3),
    *[("forty_five", n, d) for n in range(2, 11) for d in range(2, n + 1) if n % d == 0],
]


def encode(action: Action) -> int:
    """A readable action as the fast path's integer."""
    if isinstance(action, Play):
        return action.card.index
    if isinstance(action, Rob):
        return ROB + action.card.index
    if isinstance(action, PassRob):
        return PASS_ROB
    if isinstance(action, Jink):
        return JINK
    if isinstance(action, PassJink):
        return PASS_JINK
    raise AssertionError(f"not a Spoil Five action: {action!r}")


def decode(code: int) -> Action:
    """The fast path's integer as a readable action."""
    if code < ROB:
        return Play(card=ALL_CARDS[code])
    if code < PASS_ROB:
        return Rob(card=ALL_CARDS[code - ROB])
    simple: dict[int, Action] = {PASS_ROB: PassRob(), JINK: Jink(), PASS_JINK: PassJink()}
    return simple[code]


def shuffled_decks(seed: int, count: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    decks = []
    for _ in range(count):
        deck = list(standard_deck())
        rng.shuffle(deck)
        decks.append(tuple(deck))
    return decks


def play_both(game: str, options: dict[str, Any], seed: int, *, max_steps: int = 20000) -> dict[str, int]:
    """Play one random match through both engines, asserting agreement at every step; return counters."""
    decks = shuffled_decks(seed, 400)
    match = new_match(game, options, decks=RecordedDecks(decks))
    resolved = match.config.to_options()
    resolved["first_dealer"] = match.first_dealer
    fast = SpoilFiveFast.from_options(game, resolved, decks=lambda i: [c.index for c in decks[i]])
    rng = random.Random(seed ^ 0x5EED)
    seen = {"robs": 0, "jinks": 0, "deals": 0, "steps": 0}
    deal_number = -1
    for _ in range(max_steps):
        if match.is_over:
            break
        if match.deal.number != deal_number:
            deal_number = match.deal.number
            seen["deals"] += 1
            assert fast.dealer == match.deal.dealer
            for seat in range(fast.n):
                assert bits(fast.hands[seat]) == [c.index for c in match.view(seat).hand]
            turn_up = match.view(0).turn_up
            assert turn_up is not None
            assert fast.turn_up == turn_up.index
        assert match.to_act is not None
        assert fast.to_act == match.to_act
        legal = [encode(a) for a in match.legal_actions()]
        assert fast.legal_actions() == legal
        code = legal[int(rng.random() * len(legal))]
        if ROB <= code < PASS_ROB:
            seen["robs"] += 1
        if code == JINK:
            seen["jinks"] += 1
        deals_before = len(match.finished)
        match = match.apply(decode(code))
        fast.apply(code)
        seen["steps"] += 1
        assert fast.scores == list(match.scores)
        if len(match.finished) > deals_before:
            finished, before = match.finished[-1]
            record = finished.to_record(before)
            assert fast.last_deal is not None
            points, winners, hi_seat = fast.last_deal
            assert list(points) == record["points"]
            assert list(winners) == [t["winner"] for t in record["tricks"]]
            if game == "forty_five":
                bonus = record["bonus"]
                assert hi_seat == (-1 if bonus is None else bonus["seat"])
        else:
            assert fast.deal_points == list(match.deal.points)
    assert match.is_over, "the match did not end"
    assert fast.over
    assert match.result is not None
    assert fast.winners == match.result.winners
    assert fast.scores == list(match.result.scores)
    assert fast.to_act == -1
    assert fast.legal_actions() == []
    return seen


# --- Spoil Five family -----------------------------------------------------


@pytest.mark.parametrize(("game", "players", "sides"), SPOIL_FIVE_LAYOUTS)
def test_fast_spoil_five_agrees_on_every_layout(game: str, players: int, sides: int) -> None:
    for seed in range(2):
        play_both(game, {"players": players, "sides": sides, "first_dealer": seed % players}, seed)


spoil_five_cases = st.fixed_dictionaries({
    "layout": st.sampled_from(SPOIL_FIVE_LAYOUTS),
    "robbing": st.booleans(),
    "trump_at_will": st.booleans(),
    "deal_pattern": st.sampled_from(["3-2", "2-3"]),
    "jink": st.booleans(),
    "target": st.sampled_from([None, 5, 15, 30]),
    "first_dealer": st.integers(0, 9),
    "seed": st.integers(0, 2**32 - 1),
})


@given(spoil_five_cases)
def test_fast_spoil_five_agrees_with_every_option(case: dict[str, Any]) -> None:
    game, players, sides = case["layout"]
    options: dict[str, Any] = {
        "players": players, "sides": sides, "robbing": case["robbing"],
        "trump_at_will": case["trump_at_will"], "deal_pattern": case["deal_pattern"],
        "first_dealer": case["first_dealer"] % players,
    }
    if case["target"] is not None:
        options["target"] = case["target"]
    if game == "forty_five":
        options["jink"] = case["jink"]
    play_both(game, options, case["seed"])


def test_fast_spoil_five_sweep_reaches_robs_jinks_and_both_end_rules() -> None:
    """Not a vacuous pass: over a fixed sweep the random players rob, jink and finish many deals."""
    totals = {"robs": 0, "jinks": 0, "deals": 0, "steps": 0}
    for seed in range(30):
        game, players, sides = SPOIL_FIVE_LAYOUTS[seed % len(SPOIL_FIVE_LAYOUTS)]
        options: dict[str, Any] = {"players": players, "sides": sides, "first_dealer": 0}
        if game == "forty_five":
            options["jink"] = seed % 3 == 0
        for key, value in play_both(game, options, 1000 + seed).items():
            totals[key] += value
    assert totals["robs"] > 5
    assert totals["jinks"] > 2
    assert totals["deals"] > 60


# --- the playout loop itself ----------------------------------------------------


def _fast(game: str, rng: random.Random, **options: Any) -> SpoilFiveFast:
    base: dict[str, Any] = {"players": 4, "sides": 2, "deal_pattern": "3-2", "robbing": True,
                            "trump_at_will": game == "forty_five", "target": 25 if game == "twenty_five" else 45,
                            "first_dealer": 0, "jink": False}
    base.update(options)
    return SpoilFiveFast.from_options(game, base, rng=rng)


@pytest.mark.parametrize("game", ["twenty_five", "forty_five"])
def test_random_playout_is_the_legal_actions_apply_loop(game: str) -> None:
    for seed in range(20):
        rng_a = random.Random(seed)
        a = _fast(game, rng_a, jink=game == "forty_five" and seed % 2 == 0)
        decisions = a.random_playout(rng_a)
        rng_b = random.Random(seed)
        b = _fast(game, rng_b, jink=game == "forty_five" and seed % 2 == 0)
        steps = 0
        while not b.over:
            acts = b.legal_actions()
            b.apply(acts[int(rng_b.random() * len(acts))])
            steps += 1
        assert decisions == steps
        assert (a.scores, a.winners, a.deal_index) == (b.scores, b.winners, b.deal_index)


def test_clone_is_independent_of_the_original() -> None:
    rng = random.Random(7)
    state = _fast("forty_five", rng)
    for _ in range(7):
        state.apply(state.legal_actions()[0])
    snapshot = (list(state.hands), list(state.scores), state.to_act, state.legal_actions(), state.deal_index)
    copy = state.clone()
    copy.random_playout(random.Random(3))
    assert copy.over
    assert (list(state.hands), list(state.scores), state.to_act, state.legal_actions(),
            state.deal_index) == snapshot
    assert not state.over
