"""Hypothesis invariants over random games of every game, player layout and option combination.

- every card of a deal's deck is in exactly one place at every step;
- legal actions exist exactly for the seat that must act, and only while the match is not over;
- an illegal action raises RuleError and changes nothing (record and every seat's view);
- replaying a record rebuilds the same state (verify accepts it, the replay writes the same record);
- a seat's view does not change when cards that seat has not seen are permuted in the deck;
- a record survives JSON text and parsing unchanged.

Random matches are cut after a few deals (and a bounded number of actions) so the file stays fast;
hypothesis example counts come from the profiles in tests/conftest.py.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tricktable.rules.actions import Action, Beg, Bid, Denomination, Discard, Gift, Pass, PassRob, Play, Rob, Run, Stand
from tricktable.rules.cards import ALL_CARDS, Card
from tricktable.rules.errors import RuleError
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match
from tricktable.rules.record import parse_action, parse_record
from tricktable.rules.registry import game_rules, games
from tricktable.rules.shuffle import RecordedDecks
from tricktable.rules.verify import verify_record

MAX_DEALS = 3
MAX_ACTIONS = 160

Setup = tuple[str, dict[str, Any], str]


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    """A game, a valid option set drawn over every option of docs/games.md, and a seed."""
    game = draw(st.sampled_from(games()))
    options: dict[str, Any] = {}
    if game in ("twenty_five", "forty_five"):
        if game == "twenty_five":
            players = draw(st.sampled_from([4, 6]))
            sides = 2 if players == 4 else draw(st.sampled_from([2, 3]))
            options["target"] = draw(st.sampled_from([10, 25]))
        else:
            players = draw(st.integers(2, 10))
            sides = draw(st.sampled_from([d for d in range(2, players + 1) if players % d == 0]))
            options["target"] = draw(st.sampled_from([15, 45]))
            options["jink"] = draw(st.booleans())
        options.update(players=players, sides=sides, deal_pattern=draw(st.sampled_from(["3-2", "2-3"])),
                       robbing=draw(st.booleans()), trump_at_will=draw(st.booleans()))
    elif game == "all_fives":
        players = draw(st.sampled_from([2, 3]))
        options.update(players=players, target=draw(st.sampled_from([11, 61])))
    else:
        players = 4
        options["target"] = draw(st.sampled_from([300, 1000]))
        if draw(st.booleans()):
            # A club's own table: values only (the order of bids stays as in 3.3).
            step = draw(st.integers(1, 30))
            options["bid_values"] = {str(t): {d: (t - 5) * 100 + i * step for i, d in enumerate(
                ["S", "C", "D", "H", "NT"])} for t in range(6, 11)}
    options["first_dealer"] = draw(st.none() | st.integers(0, players - 1))
    seed = f"h{draw(st.integers(0, 10**9))}"
    return game, options, seed


def start(game: str, options: Mapping[str, Any], seed: str) -> Match:
    from tricktable.rules.registry import new_match

    return new_match(game, options, seed=seed)


def step_through(game: str, options: Mapping[str, Any], seed: str) -> list[Match]:
    """Every state of a random match, the first included, cut after MAX_DEALS deals or MAX_ACTIONS actions."""
    match = start(game, options, seed)
    rng = random.Random(seed)
    states = [match]
    while not match.is_over and len(match.finished) < MAX_DEALS and len(states) <= MAX_ACTIONS:
        match = match.apply(rng.choice(match.legal_actions()))
        states.append(match)
    return states


def ended(match: Match) -> Match:
    """The match, aborted if the random play was cut before its end."""
    return match if match.is_over else match.abort("cut by the test")


# --- card accounting -------------------------------------------------------------


def current_index(match: Match) -> int:
    """Index of the current deal among the match's deals (the finished last deal once the match is over)."""
    return len(match.all_deals()) - 1


def card_places(match: Match) -> tuple[Counter[Card], list[Card]]:
    """Where every card of the current deal is, from the seats' views (and the hidden kitty from the record):
    the multiset of located cards, and the cards of the deck that must be located now."""
    game = match.rules.name
    players = match.config.players
    views = [match.deal.view(s, match.scores_before) for s in range(players)]
    deal_record = match.deal.to_record(match.scores_before)
    deck = [Card.parse(c) for c in deal_record["deck"]]
    placed: Counter[Card] = Counter()
    for v in views:
        placed.update(v.hand)
    public = views[0]
    for trick in public.tricks:
        placed.update(trick.cards)
    if public.current_trick is not None:
        placed.update(public.current_trick.cards)
    if game in ("twenty_five", "forty_five"):
        # Hands, plays, the turn-up until robbed, then the robber's buried card (seen by the robber only).
        if public.robbed_by is None:
            assert public.turn_up is not None
            placed[public.turn_up] += 1
        else:
            buried = views[public.robbed_by].buried
            assert buried is not None
            placed[buried] += 1
            assert all(views[s].buried is None for s in range(players) if s != public.robbed_by)
        used = 5 * players + 1
    elif game == "all_fives":
        # Exposed cards join no hand (2.2); each exposure after the turn-up followed a round of 3 each.
        placed.update(public.exposed)
        assert public.exposed and public.exposed[0] == public.turn_up
        used = 6 * players + 1 + (len(public.exposed) - 1) * (3 * players + 1)
    else:
        # Cinq Cents: the kitty is apart until the declarer takes it with the contract (3.3); then the
        # declarer's six discards are apart, seen by the declarer only.
        if public.contract is None:
            placed.update(Card.parse(c) for c in deal_record["kitty"])
        else:
            declarer = public.contract.seat
            placed.update(views[declarer].discards)
            assert all(not views[s].kitty and not views[s].discards for s in range(players) if s != declarer)
        used = len(deck)
    return placed, deck[:used]


def assert_each_card_in_one_place(match: Match) -> None:
    placed, expected = card_places(match)
    doubled = sorted(c.code for c, n in placed.items() if n > 1)
    assert not doubled, f"cards in two places: {doubled}"
    assert set(placed) == set(expected), (
        f"misplaced: {sorted(c.code for c in set(placed) - set(expected))}, "
        f"lost: {sorted(c.code for c in set(expected) - set(placed))}")


def assert_turn_invariants(match: Match) -> None:
    players = match.config.players
    assert (match.to_act is None) == match.is_over
    assert bool(match.legal_actions()) == (match.to_act is not None)
    for seat in range(players):
        view = match.view(seat)
        assert bool(view.legal_actions) == (seat == match.to_act), (seat, match.to_act)
        assert view.to_act == match.to_act
        if seat == match.to_act:
            assert list(view.legal_actions) == match.legal_actions()


@given(setups())
def test_each_card_in_exactly_one_place_and_legal_actions_only_for_the_seat_to_act(setup: Setup) -> None:
    for match in step_through(*setup):
        assert_turn_invariants(match)
        assert_each_card_in_one_place(match)


# --- illegal actions ---------------------------------------------------------------


def illegal_candidates(match: Match, rng: random.Random) -> list[tuple[Action, int]]:
    """Actions refused in this state: a legal action by another seat, cards not legal, actions of another kind."""
    seat = match.to_act
    assert seat is not None
    legal = match.legal_actions()
    out: list[tuple[Action, int]] = []
    players = match.config.players
    other = (seat + 1 + rng.randrange(players - 1)) % players
    out.append((rng.choice(legal), other))
    deck = match.config.deck()
    for c in rng.sample(list(deck), 6):
        for action in (Play(card=c), Rob(card=c)):
            if action not in legal:
                out.append((action, seat))
    kinds: list[Action] = [PassRob(), Stand(), Beg(), Gift(), Pass(), Bid(tricks=6, denomination=Denomination.SPADES),
                           Bid(tricks=11, denomination=Denomination.NO_TRUMP), Play(card=ALL_CARDS[52]),
                           Discard(cards=tuple(deck[:6]))]
    out.extend((a, seat) for a in kinds if a not in legal)
    return out


@given(setups(), st.integers(0, 2**32))
def test_illegal_action_raises_and_changes_nothing(setup: Setup, pick: int) -> None:
    rng = random.Random(pick)
    states = [m for m in step_through(*setup) if not m.is_over]
    for match in rng.sample(states, min(4, len(states))):
        before_record = json.dumps(match.to_record())
        before_views = [match.view(s) for s in range(match.config.players)]
        legal = match.legal_actions()
        for action, seat in illegal_candidates(match, rng):
            if seat == match.to_act and action in legal:
                continue
            with pytest.raises(RuleError):
                match.apply(action, seat)
            with pytest.raises(RuleError):
                match.check(action, seat)
        assert json.dumps(match.to_record()) == before_record
        assert [match.view(s) for s in range(match.config.players)] == before_views
        assert match.legal_actions() == legal


def test_game_over_refuses_every_action() -> None:
    match = start(games()[0], {}, "over").abort("test")
    with pytest.raises(RuleError):
        match.apply(Pass())


# --- replay and round trip ---------------------------------------------------------


def same_options(view: SeatView) -> SeatView:
    """The view with ``options.first_dealer`` dropped.

    Known difference, not a leak: a live match started with ``first_dealer`` unset shows ``None`` in its
    views' options, while its record (and so a replay) writes the seat drawn from the seed.
    """
    return replace(view, options={k: v for k, v in view.options.items() if k != "first_dealer"})


def recorded_actions(record: Mapping[str, Any]) -> list[tuple[int, Action]]:
    """Every action of a record, in order, as (seat, action) with run results stripped (they are derived)."""
    out: list[tuple[int, Action]] = []
    for i, deal in enumerate(record["deals"]):
        for k, raw in enumerate(deal["actions"]):
            parsed = parse_action(raw, f"deals[{i}].actions[{k}]")
            action = parsed.action
            if isinstance(action, Run):
                action = Run()
            out.append((parsed.seat, action))
    return out


def replay(record: Mapping[str, Any], decks: Sequence[Sequence[Card]] | None = None,
           upto: int | None = None) -> Match:
    """Rebuild a match from a record: its options, its decks (or ``decks``) and its first ``upto`` actions."""
    if decks is None:
        decks = [[Card.parse(c) for c in d["deck"]] for d in record["deals"]]
    match = Match.start(game_rules(record["game"]), record["options"], RecordedDecks(decks), seed=record["seed"])
    for seat, action in recorded_actions(record)[:upto]:
        match = match.apply(action, seat)
    return match


@given(setups())
def test_replaying_a_record_rebuilds_the_same_state(setup: Setup) -> None:
    seed = setup[2]
    match = ended(step_through(*setup)[-1])
    record = match.to_record(seed=seed)
    assert verify_record(record) is None, str(verify_record(record))
    again = replay(record)
    if match.result is not None and match.result.status == "aborted":
        again = again.abort(match.result.reason)
    assert again.to_record(seed=seed) == record
    for seat in range(match.config.players):
        assert same_options(again.view(seat)) == same_options(match.view(seat))


@given(setups())
def test_record_round_trip_through_json_text(setup: Setup) -> None:
    match = ended(step_through(*setup)[-1])
    record = match.to_record(seed=setup[2], names=[f"p{s}" for s in range(match.config.players)])
    text = json.dumps(record, indent=2, ensure_ascii=False)
    loaded = json.loads(text)
    assert loaded == record
    assert json.dumps(loaded, indent=2, ensure_ascii=False) == text
    parsed = parse_record(loaded)
    assert parsed.game == setup[0]
    assert [d.number for d in parsed.deals] == list(range(1, len(record["deals"]) + 1))
    assert replay(loaded).to_record(seed=setup[2], names=[f"p{s}" for s in range(match.config.players)])["deals"] \
        == record["deals"]


# --- views are blind to hidden cards -----------------------------------------------


def seen_by(match: Match, seat: int) -> set[Card]:
    """Every card of the current deal ``seat`` has seen: its hands, all plays, the turn-up and exposures,
    the kitty and discards if declarer, its buried card."""
    view = match.view(seat)
    deal_record = match.deal.to_record(match.scores_before)
    seen = {Card.parse(c) for c in deal_record["hands"][str(seat)]} | set(view.hand)
    for trick in view.tricks:
        seen.update(trick.cards)
    if view.current_trick is not None:
        seen.update(view.current_trick.cards)
    if view.turn_up is not None:
        seen.add(view.turn_up)
    seen.update(view.exposed)
    seen.update(view.kitty)
    seen.update(view.discards)
    if view.buried is not None:
        seen.add(view.buried)
    return seen


def compare_twins(setup: Setup, pick: int, samples: int = 5) -> int:
    """Replay random prefixes of a random match from decks whose unseen cards (for a random seat) are swapped;
    assert the seat's view is the same. Returns how many twins were compared."""
    rng = random.Random(pick)
    seed = setup[2]
    states = step_through(*setup)
    record = ended(states[-1]).to_record(seed=seed)
    decks = [[Card.parse(c) for c in d["deck"]] for d in record["deals"]]
    compared = 0
    for n in rng.sample(range(len(states)), min(samples, len(states))):
        match = states[n]
        if match.is_over:
            continue
        index = current_index(match)
        seat = rng.randrange(match.config.players)
        seen = seen_by(match, seat)
        hidden = [i for i, c in enumerate(decks[index]) if c not in seen]
        if len(hidden) < 2:
            continue
        for _ in range(8):
            i, j = rng.sample(hidden, 2)
            deck = list(decks[index])
            deck[i], deck[j] = deck[j], deck[i]
            other = [*decks[:index], deck, *decks[index + 1:]]
            try:
                twin = replay(record, other, upto=n)
            except RuleError:
                continue  # the swap made an earlier action illegal (a revealed void, a rob, a discard)
            assert same_options(twin.view(seat)) == same_options(match.view(seat)), (n, seat, deck[i].code,
                                                                                      deck[j].code)
            compared += 1
    return compared


@given(setups(), st.integers(0, 2**32))
def test_view_does_not_change_when_hidden_cards_are_permuted(setup: Setup, pick: int) -> None:
    compare_twins(setup, pick)


@pytest.mark.parametrize("game", games())
def test_hidden_card_permutations_are_actually_compared(game: str) -> None:
    """The blindness property is not vacuous: for fixed seeds, permuted twins replay and get compared."""
    total = sum(compare_twins((game, {}, f"twins-{i}"), i, samples=10) for i in range(3))
    assert total >= 5


def test_permuting_a_seen_card_changes_the_view() -> None:
    """The blindness test can fail: swapping a card of the seat's own hand with a hidden one changes its view."""
    match = start("forty_five", {"players": 4, "first_dealer": 0}, "seen")
    record = match.to_record(seed="seen")
    deck = [Card.parse(c) for c in record["deals"][0]["deck"]]
    own = deck.index(Card.parse(record["deals"][0]["hands"]["1"][0]))
    deck[own], deck[-1] = deck[-1], deck[own]
    twin = replay(record, [deck], upto=0)
    assert same_options(twin.view(1)) != same_options(match.view(1))
    assert twin.view(2).hand == match.view(2).hand


__all__ = ["card_places", "replay", "setups"]
