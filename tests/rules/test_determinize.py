"""Determinization: sampled deals agree with the seat's view, on the readable engine and the fast path alike."""

from __future__ import annotations

import random

import pytest

from tricktable.rules.actions import Play, Rob
from tricktable.rules.determinize import DealSampler, resample, shown_voids
from tricktable.rules.fast.codec import encode
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match

GAMES = ("twenty_five", "forty_five", "all_fives", "cinq_cents")


def _views(game: str, seed: str, count: int) -> list[SeatView]:
    """Up to ``count`` decision points with a choice of cards, from random play of one match."""
    rng = random.Random(seed)
    match: Match = new_match(game, {}, seed=seed)
    out: list[SeatView] = []
    while not match.is_over and len(out) < count:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        if len(view.legal_actions) > 1 and all(isinstance(a, Play | Rob) for a in view.legal_actions):
            out.append(view)
        match = match.apply(rng.choice(view.legal_actions), seat)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_sampled_worlds_agree_with_the_view(game: str) -> None:
    rng = random.Random(5)
    for view in _views(game, f"worlds-{game}", 6):
        sampler = DealSampler(view)
        voids = shown_voids(view)
        played = {c for t in (*view.tricks, view.current_trick) if t is not None for c in t.cards}
        states = [s for s in (sampler.sample(rng) for _ in range(10)) if s is not None]
        assert len(states) >= 8, "most draws must give a consistent world"
        hidden_hands = set()
        for state in states:
            mine = state.view(view.seat, sampler.scores_before)
            assert mine.hand == view.hand and mine.tricks == view.tricks and mine.current_trick == view.current_trick
            assert mine.legal_actions == view.legal_actions
            for seat in range(view.players):
                hand = set(state.view(seat, sampler.scores_before).hand)
                assert not hand & played
                if seat != view.seat:
                    assert not hand & voids[seat], "a shown void is respected"
                    hidden_hands.add((seat, frozenset(hand)))
        assert len(hidden_hands) > view.players - 1, "the hidden hands vary between worlds"


@pytest.mark.parametrize("game", GAMES)
def test_a_world_replays_on_the_fast_path_to_the_same_decision(game: str) -> None:
    rng = random.Random(7)
    for view in _views(game, f"fast-{game}", 6):
        sampler = DealSampler(view)
        codes = sorted(encode(game, a) for a in view.legal_actions)
        replayed = 0
        for _ in range(10):
            world = sampler.draw(rng)
            if world is None or sampler.replay(world) is None:
                continue
            state = sampler.fast(world, random.Random(1))
            assert state is not None, "a world the readable engine accepts replays on the fast path"
            assert state.to_act == view.seat and sorted(state.legal_actions()) == codes
            assert list(state.scores) == [a - b for a, b in zip(view.scores, view.deal_points, strict=True)] \
                or game == "twenty_five"  # Twenty-Five scores tricks as they are won: the deal's count in
            replayed += 1
        assert replayed >= 8


@pytest.mark.parametrize("game", GAMES)
def test_worlds_are_deterministic_given_the_generator(game: str) -> None:
    view = _views(game, f"repro-{game}", 2)[-1]
    first = [DealSampler(view).draw(random.Random(3)) for _ in range(2)]
    assert first[0] is not None and first[0] == first[1]
    assert DealSampler(view).draw(random.Random(4)) != first[0]


def test_voids_are_read_from_failures_to_follow() -> None:
    for view in _views("all_fives", "voids", 30)[-3:]:
        for trick in view.tricks:
            lead = trick.cards[0]
            for who, c in zip(trick.seats(view.players), trick.cards, strict=True):
                if c.suit is not lead.suit:
                    assert all(x.suit is lead.suit for x in shown_voids(view)[who])
                    assert any(x.suit is lead.suit for x in shown_voids(view)[who])


def test_a_robbers_turn_up_and_ace_of_trumps_stay_in_the_robbers_deal() -> None:
    robbed = [v for game in ("twenty_five", "forty_five") for i in range(12)
              for v in _views(game, f"rob-{i}", 8) if v.robbed_by is not None and v.robbed_by != v.seat]
    assert robbed, "some random deals have a rob by another seat"
    rng = random.Random(2)
    for view in robbed[:6]:
        state = resample(view, rng)
        assert state is not None
        assert state.view(view.seat, (0,) * len(view.scores)).robbed_by == view.robbed_by


def test_resample_gives_a_state_at_the_views_decision_point() -> None:
    view = _views("cinq_cents", "resample", 3)[-1]
    state = resample(view, random.Random(0))
    assert state is not None and state.to_act == view.seat and tuple(state.legal_actions()) == view.legal_actions
