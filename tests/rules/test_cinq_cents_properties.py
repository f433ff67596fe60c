"""Invariants of random Cinq Cents deals (hypothesis): cards conserved, legal actions exactly for the seat to
act and all accepted, illegal actions refused without change, views private, scores as 3.6 says, replay exact."""

from __future__ import annotations

import random
import re

from hypothesis import given
from hypothesis import strategies as st

from tricktable.rules.actions import Action, Bid, Discard, Pass, Play
from tricktable.rules.cards import Card, cinq_cents_deck
from tricktable.rules.cinq_cents import CinqCentsConfig, CinqCentsDeal, Phase
from tricktable.rules.errors import RuleError
from tricktable.rules.record import action_from_json
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks, SeededDecks

CARD_IN_REPR = re.compile(r"Card\((\w+)\)")


def random_deal(seed: int) -> tuple[CinqCentsDeal, list[CinqCentsDeal]]:
    """A deal played at random (passing often, so void deals happen too), and every state on the way."""
    rng = random.Random(seed)
    deck = SeededDecks(str(seed)).deck(0, cinq_cents_deck())
    state = CinqCentsDeal.start(CinqCentsConfig(), number=1, dealer=seed % 4, deck=deck)
    states = [state]
    while not state.is_over:
        actions = state.legal_actions()
        action = Pass() if state.phase is Phase.BIDDING and rng.random() < 0.6 else rng.choice(actions)
        state = state.apply(action)
        states.append(state)
    return state, states


def placed_cards(state: CinqCentsDeal) -> list[Card]:
    out = [c for hand in state.hands for c in hand]
    if state.contract is None:
        out.extend(state.kitty)
    out.extend(state.discards)
    out.extend(c for t in state.tricks for c in t.cards)
    if state.current is not None:
        out.extend(state.current.cards)
    return out


@given(st.integers(0, 10**9))
def test_every_card_is_in_exactly_one_place_at_every_step(seed: int) -> None:
    _, states = random_deal(seed)
    for state in states:
        placed = placed_cards(state)
        assert len(placed) == 46 and set(placed) == set(cinq_cents_deck())


@given(st.integers(0, 10**9))
def test_legal_actions_exist_exactly_for_the_seat_to_act_and_are_all_accepted(seed: int) -> None:
    _, states = random_deal(seed)
    for state in states:
        actions = state.legal_actions()
        assert bool(actions) == (state.to_act is not None)
        sample = actions if len(actions) < 50 else random.Random(seed).sample(actions, 50)
        for action in sample:
            state.check(action)
            state.check(action, state.to_act)


def _illegal(state: CinqCentsDeal, rng: random.Random) -> list[Action]:
    seat = state.to_act
    assert seat is not None
    held = set(state.hands[seat])
    not_held = [c for c in cinq_cents_deck() if c not in held]
    legal = set(state.legal_actions()) if state.phase is not Phase.DISCARD else set()
    out: list[Action] = [Play(card=rng.choice(not_held)), Discard(cards=tuple(rng.sample(not_held, 6)))]
    out.extend(Play(card=c) for c in sorted(held) if Play(card=c) not in legal and not c.is_joker)
    if state.phase is Phase.BIDDING:
        out.extend(Bid(tricks=t, denomination=b.denomination) for b in [*legal] if isinstance(b, Bid)
                   for t in (5, 11))
    return out


@given(st.integers(0, 10**9))
def test_illegal_actions_raise_and_change_nothing(seed: int) -> None:
    rng = random.Random(seed)
    _, states = random_deal(seed)
    for state in states:
        if state.to_act is None:
            continue
        before = state
        legal = state.legal_actions() if state.phase is not Phase.DISCARD else []
        for action in _illegal(state, rng):
            if action in legal:
                continue
            try:
                state.apply(action)
            except RuleError:
                pass
            else:
                raise AssertionError(f"{action} was accepted but is not legal")
            assert state == before
        wrong_seat = (state.to_act + 1) % 4
        try:
            state.apply(state.legal_actions()[0], wrong_seat)
        except RuleError:
            pass
        else:
            raise AssertionError("an action out of turn was accepted")


@given(st.integers(0, 10**9))
def test_views_never_show_other_hands_or_the_kitty_and_discards_to_non_declarers(seed: int) -> None:
    _, states = random_deal(seed)
    for state in states:
        for seat in range(4):
            view = state.view(seat, (0, 0))
            seen = set(CARD_IN_REPR.findall(repr(view)))  # the history's typed events included
            hidden = {c.code for other in range(4) if other != seat for c in state.hands[other]}
            declarer = state.contract is not None and state.contract.seat == seat
            if state.contract is None:
                hidden |= {c.code for c in state.kitty}
            if not declarer:
                # Kitty cards the declarer kept are in their hand (hidden above) until played, then public.
                hidden |= {c.code for c in state.discards}
            assert not seen & hidden
            assert sorted(view.hand) == sorted(state.hands[seat])


@given(st.integers(0, 10**9))
def test_deal_points_follow_the_contract_and_the_tricks(seed: int) -> None:
    state, _ = random_deal(seed)
    if state.is_void:
        assert state.points == (0, 0) and state.tricks == ()
        return
    contract = state.contract
    assert contract is not None
    won = state.tricks_won()
    ours = contract.seat % 2
    assert sum(won) == 10
    value = CinqCentsConfig().bid_values.value(contract.tricks, contract.denomination)
    assert state.points[ours] == (value if won[ours] >= contract.tricks else -value)
    assert state.points[1 - ours] == 10 * won[1 - ours]


@given(st.integers(0, 10**9))
def test_replaying_the_record_gives_the_same_record(seed: int) -> None:
    state, _ = random_deal(seed)
    record = state.to_record([0, 0])
    decks = RecordedDecks([state.deck, cinq_cents_deck()])
    match = new_match("cinq_cents", {"first_dealer": state.dealer}, decks=decks)
    for item in record["actions"]:
        match = match.apply(action_from_json(item), item["seat"])
    assert match.to_record()["deals"][0] == record


def _permuted(deck: tuple[Card, ...], groups: list[list[int]], rng: random.Random) -> tuple[Card, ...]:
    out = list(deck)
    for group in groups:
        chosen = [deck[i] for i in group]
        rng.shuffle(chosen)
        for i, c in zip(group, chosen, strict=True):
            out[i] = c
    return tuple(out)


@given(st.integers(0, 10**9))
def test_a_view_does_not_change_when_hidden_cards_are_permuted(seed: int) -> None:
    """Through the bidding and the discard: shuffle what a seat cannot see, replay, and its view is the same."""
    rng = random.Random(seed)
    config = CinqCentsConfig()
    deck = SeededDecks(str(seed)).deck(0, cinq_cents_deck())
    state = CinqCentsDeal.start(config, number=1, dealer=seed % 4, deck=deck)
    prefix: list[Action] = []
    while state.phase in (Phase.BIDDING, Phase.DISCARD):
        action = Pass() if state.phase is Phase.BIDDING and rng.random() < 0.5 else rng.choice(state.legal_actions())
        prefix.append(action)
        state = state.apply(action)
    where = {c: i for i, c in enumerate(deck)}
    hands = [[where[c] for c in hand] for hand in state.dealt]
    kitty = [where[c] for c in state.kitty]
    for seat in range(4):
        others = [i for s in range(4) if s != seat for i in hands[s]]
        if state.contract is None:
            groups = [others + kitty]
        elif state.contract.seat == seat:
            groups = [others]
        else:
            # The declarer's hand, the kitty and which of them were thrown are all hidden from this seat.
            d = state.contract.seat
            groups = [[i for s in range(4) if s not in (seat, d) for i in hands[s]], hands[d] + kitty]
        permuted = _permuted(deck, groups, rng)
        other = CinqCentsDeal.start(config, number=1, dealer=seed % 4, deck=permuted)
        for action in prefix:
            if isinstance(action, Discard):
                action = Discard(cards=tuple(permuted[where[c]] for c in action.cards))
            other = other.apply(action)
        assert other.view(seat, (0, 0)) == state.view(seat, (0, 0))
