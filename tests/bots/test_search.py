"""The search bot: it sees only the view, its worlds agree with the view, and its choices are reproducible."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest

from tests.bots.support import GAMES, advance, first_deck, replay
from tricktable.bots.fast_worlds import FastPlayout, WorldStream, action_totals
from tricktable.bots.search import SearchBot
from tricktable.client_sdk.bot import AnnotatedAction, action_of
from tricktable.rules.actions import Action, Play
from tricktable.rules.cards import Card
from tricktable.rules.cinq_cents_play import suit_of as cinq_suit_of
from tricktable.rules.fast import FastState
from tricktable.rules.game import SeatView
from tricktable.rules.spoil_five_ranking import RANKINGS

#: Actions into the first deal where the seat to act has a real choice of cards, per game.
STEPS = {"twenty_five": (0, 6, 11), "forty_five": (1, 7, 13), "all_fives": (2, 5, 9), "cinq_cents": (9, 14, 21)}


def _plain(view: SeatView, card: Card) -> bool:
    """Not a trump (swapping two plain cards of a suit keeps every earlier play legal)."""
    if view.game in ("twenty_five", "forty_five"):
        assert view.trump is not None
        return not RANKINGS[view.trump].is_trump(card)
    if view.game == "cinq_cents":
        return not card.is_joker and (view.trump is None or cinq_suit_of(card, view.trump) is not view.trump)
    return card.suit is not view.trump


def _decision(game: str, seed: str, steps: int):
    match, done = advance(game, seed, steps)
    while not match.is_over and not match.finished:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        if len(view.legal_actions) > 1 and all(isinstance(a, Play) for a in view.legal_actions):
            return match, done, view
        match, done = advance(game, seed, len(done) + 1)
    pytest.skip("no decision point in this deal")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("index", [0, 1, 2])
def test_choice_does_not_change_when_hidden_cards_are_permuted(game: str, index: int) -> None:
    seed = f"hidden-{game}-{index}"
    match, done, view = _decision(game, seed, STEPS[game][index])
    me = view.seat
    hidden = {s: [c for c in match.view(s).hand if _plain(view, c)] for s in range(view.players) if s != me}
    if game == "all_fives":  # two players: swap with the undealt stock instead (-1)
        dealt = {c for s in range(view.players) for c in match.view(s).hand}
        played = {c for t in (*view.tricks, view.current_trick) if t is not None for c in t.cards}
        hidden[-1] = [c for c in first_deck(match) if c not in dealt | played | set(view.exposed)
                      and _plain(view, c)]
    rng = random.Random(index)
    pairs = [(a, b) for s in hidden for t in hidden if s < t for a in hidden[s] for b in hidden[t]
             if a.suit is b.suit]
    if not pairs:
        pytest.skip("no two hidden cards of one suit in two other hands")
    a, b = rng.choice(pairs)
    deck = first_deck(match)
    i, j = deck.index(a), deck.index(b)
    deck[i], deck[j] = deck[j], deck[i]
    other = replay(game, seed, deck, done)
    assert other.view(me) == view, "the swap must not change what the seat sees"
    assert other.to_record() != match.to_record(), "the swap changed the hidden cards"
    first = SearchBot(11, simulations=6).choose_action(view)
    second = SearchBot(11, simulations=6).choose_action(other.view(me))
    assert first == second


@pytest.mark.parametrize("game", GAMES)
def test_choices_are_reproducible_with_a_seed_and_simulation_count(game: str) -> None:
    _, _, view = _decision(game, f"repro-{game}", STEPS[game][1])
    bot = SearchBot("r", simulations=5)
    choice = bot.choose_action(view)
    assert bot.last_worlds == 5
    SearchBot("other", simulations=3).choose_action(view)  # another bot in between changes nothing
    assert [SearchBot("r", simulations=5).choose_action(view) for _ in range(2)] == [choice, choice]
    assert bot.choose_action(view) == choice  # nor does the bot's own history


def test_search_with_a_time_budget_returns_a_legal_action() -> None:
    _, _, view = _decision("forty_five", "budget", 3)
    bot = SearchBot(1, budget=0.02)
    assert action_of(bot.choose_action(view)) in view.legal_actions
    assert bot.last_worlds >= 1


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="playout"):
        SearchBot(playout="oracle")
    with pytest.raises(ValueError, match="simulations"):
        SearchBot(simulations=0)
    with pytest.raises(ValueError, match="bid_worlds"):
        SearchBot(bid_worlds=1)


@pytest.mark.parametrize("game", GAMES)
def test_search_reads_a_view_that_came_over_the_wire_the_same_way(game: str) -> None:
    from tricktable.protocol.convert import view_from_proto, view_to_proto

    _, _, view = _decision(game, f"wire-{game}", STEPS[game][2])
    wired = view_from_proto(view_to_proto(view))
    here, there = SearchBot(4, simulations=4), SearchBot(4, simulations=4)
    assert here.choose_action(view) == there.choose_action(wired)
    assert there.last_worlds == 4, "worlds are rebuilt from the SDK's view too (no fallback)"


def test_search_bids_in_cinq_cents_are_legal_and_reproducible() -> None:
    from tricktable.rules.registry import new_match

    match = new_match("cinq_cents", {}, seed="bids")
    assert match.to_act is not None
    view = match.view(match.to_act)
    choice = action_of(SearchBot(2, simulations=3, bid_search=True).choose_action(view))
    assert choice in view.legal_actions
    assert action_of(SearchBot(2, simulations=3, bid_search=True).choose_action(view)) == choice


def test_search_discards_in_cinq_cents_are_legal_and_among_the_candidates() -> None:
    from tricktable.bots.heuristic import HeuristicBot
    from tricktable.bots.search_bids import discard_candidates
    from tricktable.rules.actions import Discard
    from tricktable.rules.registry import new_match

    match = new_match("cinq_cents", {}, seed="discard")
    while match.to_act is not None and not match.finished:
        view = match.view(match.to_act)
        if any(isinstance(a, Discard) for a in view.legal_actions):
            break
        match = match.apply(HeuristicBot().choose_action(view), match.to_act)
    else:
        pytest.skip("all passed")
    assert view.contract is not None
    noted = SearchBot(3, simulations=3).choose_action(view)
    choice = action_of(noted)
    assert choice in view.legal_actions
    assert isinstance(choice, Discard)
    candidates = discard_candidates(view.hand, view.contract.denomination.suit)
    assert choice.cards in candidates
    assert isinstance(noted, AnnotatedAction) and noted.annotation.note == "discard search: 3 worlds"
    assert len(noted.annotation.values) == len(candidates), "every candidate discard's mean is in the note"


def _first_legal_playout(state: FastState, rng: random.Random, sides: Sequence[int]) -> None:
    """The rest of the deal with every seat's lowest legal action (takes nothing from the generator)."""
    start = state.deal_index
    while not state.over and state.deal_index == start:
        state.apply(state.legal_actions()[0])


def _last_legal_playout(state: FastState, rng: random.Random, sides: Sequence[int]) -> None:
    """The rest of the deal with every seat's highest legal card (takes nothing from the generator)."""
    start = state.deal_index
    while not state.over and state.deal_index == start:
        acts = state.legal_actions()
        cards = [a for a in acts if a < state.PLAYS_BELOW]
        state.apply(cards[-1] if cards else acts[0])


class _FixedWorlds(WorldStream):
    """The same fast states every time it is iterated (a world's end deals the next deal from the generator)."""

    def __init__(self, view: SeatView, states: Sequence[FastState]) -> None:
        super().__init__(view, random.Random(0), len(states))
        self.states = states

    def __iter__(self) -> Iterator[FastState]:
        for state in self.states:
            self.drawn += 1
            yield state.clone()


def test_an_ensemble_values_each_candidate_by_the_mean_of_its_playouts() -> None:
    _, _, view = _decision("twenty_five", "ensemble-mean", STEPS["twenty_five"][1])
    legal = view.legal_actions
    states = list(WorldStream(view, random.Random(3), 8))

    def totals(playouts: Sequence[FastPlayout]) -> list[float]:
        return action_totals(view, legal, _FixedWorlds(view, states), playouts, 10.0)

    low, high = totals([_first_legal_playout]), totals([_last_legal_playout])
    assert low != high, "the two playouts must disagree for the mean to mean anything"
    both = totals([_first_legal_playout, _last_legal_playout])
    assert both == pytest.approx([(a + b) / 2 for a, b in zip(low, high, strict=True)])


def test_spoil_five_cards_are_searched_with_the_ensemble_and_all_fives_with_greedy_playouts() -> None:
    def values(game: str, playout: str | None) -> dict[Action, float]:
        _, _, view = _decision(game, f"default-playout-{game}", STEPS[game][1])
        bot = SearchBot("p", simulations=12, playout=playout)
        bot.choose_action(view)
        return bot.last_values

    assert values("twenty_five", None) == values("twenty_five", "ensemble") != values("twenty_five", "greedy")
    assert values("forty_five", None) == values("forty_five", "ensemble") != values("forty_five", "greedy")
    assert values("all_fives", None) == values("all_fives", "greedy") != values("all_fives", "ensemble")
