"""The playout fast path agrees with the readable engine move for move.

Random games of every player count, side layout and option are played
through ``tricktable.rules.registry.new_match`` (with :class:`RecordedDecks`) and
through :mod:`tricktable.rules.fast` side by side. At every step both must name the
same seat to act and the same legal actions in the same order; after every
action the running scores must match; at every deal's end the trick
winners, the deal's points and Forty-Five's bonus seat; at the end the
winners and final scores. The action taken is drawn at random among the
legal ones, so robs, jinks, renege cases and both end rules are reached.
All Fives (gifts, runs, void deals) and Cinq Cents (bids, discards, no-trump
jokers, all-pass voids) are compared the same way; the inlined
``random_playout`` must draw exactly what the generic loop draws; and
:mod:`tricktable.rules.fast.codec` must round-trip actions and rebuild a match.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tricktable.rules.actions import Discard, Pass
from tricktable.rules.cards import ALL_CARDS, Card, cinq_cents_deck, standard_deck
from tricktable.rules.fast import all_fives, cinq_cents, codec, new_fast
from tricktable.rules.fast.bitset import bits
from tricktable.rules.fast.spoil_five import JINK, PASS_ROB, ROB, SpoilFiveFast
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks

# --- the layouts and options of section 1 ------------------------------------

#: (game, players, sides) for every layout docs/games.md 1.1 allows.
SPOIL_FIVE_LAYOUTS: list[tuple[str, int, int]] = [
    ("twenty_five", 4, 2), ("twenty_five", 6, 2), ("twenty_five", 6, 3),
    *[("forty_five", n, d) for n in range(2, 11) for d in range(2, n + 1) if n % d == 0],
]


def shuffled_decks(seed: int, count: int, cards: Sequence[Card] = standard_deck()) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    decks = []
    for _ in range(count):
        deck = list(cards)
        rng.shuffle(deck)
        decks.append(tuple(deck))
    return decks


def play_both(game: str, options: dict[str, Any], seed: int, *, max_steps: int = 20000, max_deals: int = 0,
              first_decks: Sequence[tuple[Card, ...]] = (), prefer: tuple[int, ...] = ()) -> dict[str, int]:
    """Play one random match through both engines, asserting agreement at every step; return counters.

    ``first_decks`` replace the first random decks; an action in ``prefer`` is taken whenever it is legal.
    ``max_deals`` (Cinq Cents, whose random matches seldom end): stop after that many deals.
    """
    cards = cinq_cents_deck() if game == "cinq_cents" else standard_deck()
    decks = [*first_decks, *shuffled_decks(seed, 400, cards)]
    match = new_match(game, options, decks=RecordedDecks(decks))
    resolved = match.config.to_options()
    resolved["first_dealer"] = match.first_dealer
    fast: Any = new_fast(game, resolved, decks=lambda i: [c.index for c in decks[i]])
    rng = random.Random(seed ^ 0x5EED)
    seen = {"robs": 0, "jinks": 0, "deals": 0, "steps": 0, "void": 0, "runs": 0, "gifts": 0, "discards": 0,
            "ended": 0}
    deal_number = -1
    for _ in range(max_steps):
        if match.is_over:
            break
        if match.deal.number != deal_number:
            deal_number = match.deal.number
            seen["deals"] += 1
            if max_deals and seen["deals"] > max_deals:
                return seen
            assert fast.dealer == match.deal.dealer
            for seat in range(fast.n):
                assert bits(fast.hands[seat]) == [c.index for c in match.view(seat).hand]
            if game != "cinq_cents":
                turn_up = match.view(0).turn_up
                assert turn_up is not None
                first_exposed = fast.exposed[0] if game == "all_fives" else fast.turn_up
                assert first_exposed == turn_up.index
        assert match.to_act is not None
        assert fast.to_act == match.to_act
        readable_legal = match.legal_actions()
        if isinstance(readable_legal[0], Discard) and seen["discards"]:
            # 8008 discards: compared in full once per match, then by count and the one drawn.
            legal = fast.legal_actions()
            assert len(legal) == len(readable_legal)
            index = int(rng.random() * len(legal))
            assert legal[index] == codec.encode(game, readable_legal[index])
            legal = [legal[index]]
        else:
            legal = [codec.encode(game, a) for a in readable_legal]
            assert fast.legal_actions() == legal
        if isinstance(readable_legal[0], Discard):
            seen["discards"] += 1
        code = legal[int(rng.random() * len(legal))]
        for wanted in prefer:
            if wanted in legal:
                code = wanted
                break
        if game != "all_fives" and ROB <= code < PASS_ROB:
            seen["robs"] += 1
        if game != "all_fives" and code == JINK:
            seen["jinks"] += 1
        if game == "all_fives" and code == all_fives.RUN:
            seen["runs"] += 1
        if game == "all_fives" and code == all_fives.GIFT:
            seen["gifts"] += 1
        deals_before = len(match.finished)
        match = match.apply(codec.decode(game, code))
        fast.apply(code)
        seen["steps"] += 1
        assert fast.scores == list(match.scores)
        if len(match.finished) > deals_before:
            finished, before = match.finished[-1]
            record = finished.to_record(before)
            assert fast.last_deal is not None
            points, winners, extra = fast.last_deal
            assert list(points) == record["points"]
            assert list(winners) == [t["winner"] for t in record["tricks"]]
            if game == "forty_five":
                bonus = record["bonus"]
                assert extra == (-1 if bonus is None else bonus["seat"])
            if game == "cinq_cents":
                assert extra == finished.is_void
                seen["void"] += int(finished.is_void)
            if game == "all_fives":
                assert extra == finished.is_void
                seen["void"] += int(finished.is_void)
                runs = [a["exposed"] for a in record["actions"] if a["type"] == "run"]
                exposed = [record["turn_up"], *(c for run in runs for c in run)]
                assert exposed == [ALL_CARDS[c].code for c in fast.last_exposed]
        else:
            assert fast.deal_points == list(match.deal.points)
            if game == "all_fives":
                view = match.view(0)
                assert fast.exposed == [c.index for c in view.exposed]
                assert fast.trump == (-1 if view.trump is None else "CDHS".index(view.trump.value))
            if game == "cinq_cents" and code >= cinq_cents.BID:
                contract = match.view(match.deal.dealer).contract
                assert fast.contract == (None if contract is None else (
                    contract.seat, contract.tricks, contract.denomination.order))
    assert match.is_over, "the match did not end"
    seen["ended"] += 1
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
            totals[key] = totals.get(key, 0) + value
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


@pytest.mark.parametrize(("game", "players", "sides"), SPOIL_FIVE_LAYOUTS)
def test_random_playout_is_the_legal_actions_apply_loop(game: str, players: int, sides: int) -> None:
    """The inlined playout draws exactly what the generic legal_actions/apply loop draws, option by option."""
    for seed in range(6):
        options: dict[str, Any] = {
            "players": players, "sides": sides, "robbing": seed % 3 != 2, "trump_at_will": seed % 2 == 0,
            "deal_pattern": "2-3" if seed % 4 == 1 else "3-2", "first_dealer": seed % players,
        }
        if game == "forty_five":
            options["jink"] = seed % 2 == 1
        rng_a = random.Random(seed)
        a = _fast(game, rng_a, **options)
        decisions = a.random_playout(rng_a)
        rng_b = random.Random(seed)
        b = _fast(game, rng_b, **options)
        steps = 0
        while not b.over:
            acts = b.legal_actions()
            b.apply(acts[int(rng_b.random() * len(acts))])
            steps += 1
        assert decisions == steps
        assert (a.scores, a.winners, a.deal_index, a.last_deal) == (b.scores, b.winners, b.deal_index, b.last_deal)


def test_random_playout_one_deal_stops_at_the_end_of_the_deal() -> None:
    rng = random.Random(11)
    state = _fast("forty_five", rng)
    state.apply(state.legal_actions()[0])
    copy = state.clone()
    decisions = copy.random_playout(random.Random(2), one_deal=True)
    assert copy.over or copy.deal_index == state.deal_index + 1
    assert 0 < decisions <= 5 * 4 + 2


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


# --- All Fives -------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_fast_all_fives_agrees(players: int) -> None:
    for seed in range(3):
        play_both("all_fives", {"players": players, "first_dealer": seed % players}, 500 + seed)


@given(st.sampled_from([2, 3]), st.sampled_from([None, 1, 5, 20, 61]), st.integers(0, 2), st.integers(0, 2**32 - 1))
def test_fast_all_fives_agrees_with_every_option(players: int, target: int | None, dealer: int, seed: int) -> None:
    options: dict[str, Any] = {"players": players, "first_dealer": dealer % players}
    if target is not None:
        options["target"] = target
    play_both("all_fives", options, seed)


def test_fast_all_fives_sweep_reaches_gifts_runs_voids_and_refused_gifts() -> None:
    """Not vacuous: the sweep gifts, runs the pack, voids deals, and plays at a target where gifts are refused."""
    totals: dict[str, int] = {}
    for seed in range(12):
        options: dict[str, Any] = {"players": 2 + seed % 2, "first_dealer": 0, "target": 1 if seed % 4 == 0 else 61}
        for key, value in play_both("all_fives", options, 900 + seed).items():
            totals[key] = totals.get(key, 0) + value
    assert totals["gifts"] > 3
    assert totals["runs"] > 10


def _void_deck(players: int) -> tuple[Card, ...]:
    """A deck whose every exposure is a heart until the pack cannot serve another round: a void deal."""
    rounds = 0
    while 52 - (6 * players + 1) - rounds * (3 * players + 1) >= 3 * players + 1:
        rounds += 1
    hearts = [c for c in standard_deck() if c.code.endswith("H")]
    exposures = [hearts.pop() for _ in range(1 + rounds)]
    fillers = [c for c in standard_deck() if not c.code.endswith("H")] + hearts
    deck = [fillers.pop(0) for _ in range(6 * players)] + [exposures.pop()]
    for _ in range(rounds):
        deck += [fillers.pop(0) for _ in range(3 * players)] + [exposures.pop()]
    deck += fillers
    assert sorted(c.index for c in deck) == list(range(52))
    return tuple(deck)


@pytest.mark.parametrize("players", [2, 3])
def test_fast_all_fives_agrees_on_a_void_deal_and_its_redeal(players: int) -> None:
    seen = play_both("all_fives", {"players": players, "first_dealer": 0}, 77,
                     first_decks=[_void_deck(players)], prefer=(all_fives.BEG, all_fives.RUN))
    assert seen["void"] >= 1


@pytest.mark.parametrize("players", [2, 3])
def test_all_fives_random_playout_is_the_legal_actions_apply_loop(players: int) -> None:
    for seed in range(10):
        rng_a = random.Random(seed)
        a = all_fives.AllFivesFast(players=players, rng=rng_a)
        decisions = a.random_playout(rng_a)
        rng_b = random.Random(seed)
        b = all_fives.AllFivesFast(players=players, rng=rng_b)
        steps = 0
        while not b.over:
            acts = b.legal_actions()
            b.apply(acts[int(rng_b.random() * len(acts))])
            steps += 1
        assert decisions == steps
        assert (a.scores, a.winners, a.deal_index) == (b.scores, b.winners, b.deal_index)


# --- Cinq Cents ------------------------------------------------------------------


def test_fast_cinq_cents_agrees_deal_by_deal() -> None:
    """Random Cinq Cents matches seldom end, so each is compared over its first deals (voids included)."""
    totals: dict[str, int] = {}
    for seed in range(4):
        for key, value in play_both("cinq_cents", {"first_dealer": seed}, 300 + seed, max_deals=6).items():
            totals[key] = totals.get(key, 0) + value
    assert totals["deals"] >= 20


@settings(max_examples=12)
@given(st.sampled_from([20, 50, 100]), st.integers(0, 3), st.integers(0, 2**32 - 1), st.booleans())
def test_fast_cinq_cents_agrees_at_low_targets(target: int, dealer: int, seed: int, own_table: bool) -> None:
    """Low targets reach the end rules; ``bid_values`` given as an option is honoured."""
    options: dict[str, Any] = {"first_dealer": dealer, "target": target}
    if own_table:
        options["bid_values"] = {str(t): {d: 10 * t + i for i, d in enumerate(["S", "C", "D", "H", "NT"])}
                                 for t in range(6, 11)}
    play_both("cinq_cents", options, seed, max_deals=8)


def test_fast_cinq_cents_sweep_reaches_the_end() -> None:
    totals: dict[str, int] = {}
    for seed in range(10):
        options = {"first_dealer": seed % 4, "target": 20 + 20 * (seed % 3)}
        for key, value in play_both("cinq_cents", options, 700 + seed, max_deals=8).items():
            totals[key] = totals.get(key, 0) + value
    assert totals["ended"] >= 3


def test_fast_cinq_cents_agrees_on_all_pass_void_deals() -> None:
    seen = play_both("cinq_cents", {"first_dealer": 2}, 5, max_deals=3, prefer=(cinq_cents.PASS,))
    assert seen["void"] == 3


def test_cinq_cents_random_playout_is_the_legal_actions_apply_loop() -> None:
    for seed in range(4):
        rng_a = random.Random(seed)
        a = cinq_cents.CinqCentsFast(target=200, rng=rng_a)
        decisions = a.random_playout(rng_a, one_deal=True)
        rng_b = random.Random(seed)
        b = cinq_cents.CinqCentsFast(target=200, rng=rng_b)
        steps = 0
        start = b.deal_index
        while not b.over:
            acts = b.legal_actions()
            b.apply(acts[int(rng_b.random() * len(acts))])
            steps += 1
            if b.deal_index != start and b.last_deal is not None and not b.last_deal[2]:
                break
        assert decisions == steps
        assert (a.scores, a.deal_index, a.last_deal) == (b.scores, b.deal_index, b.last_deal)


# --- codec: action codes and a readable match as a fast state ---------------------------


ALL_GAME_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("twenty_five", {"players": 4}), ("twenty_five", {"players": 6, "sides": 3}),
    ("forty_five", {"players": 4, "jink": True}), ("forty_five", {"players": 7}),
    ("all_fives", {"players": 2}), ("all_fives", {"players": 3}), ("cinq_cents", {}),
]


@pytest.mark.parametrize(("game", "options"), ALL_GAME_OPTIONS)
def test_codec_decodes_what_it_encodes(game: str, options: dict[str, Any]) -> None:
    match = new_match(game, {**options, "first_dealer": 0}, seed="codec")
    rng = random.Random(1)
    for _ in range(120):
        if match.is_over:
            break
        legal = match.legal_actions()
        for action in legal[:200]:
            assert codec.decode(game, codec.encode(game, action)) == action
        match = match.apply(legal[int(rng.random() * len(legal))])


@pytest.mark.parametrize(("game", "options"), ALL_GAME_OPTIONS)
def test_from_match_rebuilds_the_match_and_plays_on_in_step(game: str, options: dict[str, Any]) -> None:
    """At random points of a match, the fast state built from it agrees to the end of the current deal."""
    for seed in range(4):
        rng = random.Random(seed)
        match = new_match(game, {**options, "first_dealer": seed % (options.get("players") or 4)}, seed=f"m{seed}")
        for _ in range(int(rng.random() * 60)):
            if match.is_over:
                break
            legal = match.legal_actions()
            match = match.apply(legal[int(rng.random() * len(legal))])
        if match.is_over:
            continue
        fast: Any = codec.from_match(match, random.Random(seed))
        deal_number = match.deal.number
        while not match.is_over and match.deal.number == deal_number:
            assert fast.to_act == match.to_act
            assert fast.scores == list(match.scores)
            legal = match.legal_actions()
            if isinstance(legal[0], Discard):
                assert len(fast.legal_actions()) == len(legal)
            else:
                assert fast.legal_actions() == [codec.encode(game, a) for a in legal]
            action = legal[int(rng.random() * len(legal))]
            match = match.apply(action)
            fast.apply(codec.encode(game, action))
        assert fast.scores == list(match.scores)
        # Past the deal the fast state shuffles its own decks: it plays on to a legal end.
        fast.random_playout(random.Random(seed), one_deal=True)


def test_codec_refuses_actions_of_other_games() -> None:
    with pytest.raises(ValueError, match="no fast code"):
        codec.encode("all_fives", Pass())
    with pytest.raises(ValueError, match="no action has the fast code"):
        codec.decode("twenty_five", 999)
