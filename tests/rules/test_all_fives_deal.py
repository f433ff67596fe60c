"""All Fives, docs/games.md 2.1 and 2.2: players, options, the deal, standing, begging, the gift, running the pack."""

from __future__ import annotations

import pytest

from tests.rules.test_all_fives_decks import build_deck, start
from tricktable.rules.actions import Beg, Gift, Play, Run, Stand
from tricktable.rules.all_fives import RULES, AllFivesConfig, Phase
from tricktable.rules.cards import Card, Suit, card, cards, standard_deck
from tricktable.rules.errors import ErrorCode, OptionsError, RuleError
from tricktable.rules.game import DealState, GameConfig, GameRules
from tricktable.rules.record import action_from_json
from tricktable.rules.registry import game_rules, new_match
from tricktable.rules.shuffle import RecordedDecks

# --- 2.1 players, deck, options -----------------------------------------


def test_players_default_two_each_alone() -> None:
    config = RULES.config({})
    assert config.players == 2 and config.target == 61 and config.first_dealer is None
    assert config.sides == ((0,), (1,))
    assert RULES.config({"players": 3}).sides == ((0,), (1,), (2,))


def test_registry_finds_all_fives() -> None:
    assert game_rules("all_fives") is RULES
    assert RULES.name == "all_fives"


def test_rules_and_deal_meet_the_game_contract() -> None:
    # Checked by mypy: the objects satisfy the protocols of rules/game.py.
    rules: GameRules = RULES
    config: GameConfig = rules.config({})
    state: DealState = rules.start_deal(config, number=1, dealer=0, deck=standard_deck(), scores=[0, 0],
                                        redeal=False)
    assert state.to_act == 1 and config.game == "all_fives"


def test_to_options_writes_every_option() -> None:
    assert RULES.config({}).to_options() == {"players": 2, "target": 61, "first_dealer": None}
    assert RULES.config({"players": 3, "target": 31, "first_dealer": 2}).to_options() == {
        "players": 3, "target": 31, "first_dealer": 2}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 4}, "all_fives: players must be 2 or 3 (got 4)"),
        ({"players": 1}, "all_fives: players must be 2 or 3 (got 1)"),
        ({"players": True}, "all_fives: players must be 2 or 3 (got True)"),
        ({"players": "2"}, "all_fives: players must be 2 or 3 (got '2')"),
        ({"target": 0}, "all_fives: target must be a positive integer (got 0)"),
        ({"target": 61.0}, "all_fives: target must be a positive integer (got 61.0)"),
        ({"target": False}, "all_fives: target must be a positive integer (got False)"),
        ({"first_dealer": 2}, "all_fives: first_dealer must be a seat from 0 to 1 or null (got 2)"),
        ({"first_dealer": -1}, "all_fives: first_dealer must be a seat from 0 to 1 or null (got -1)"),
        ({"first_dealer": True}, "all_fives: first_dealer must be a seat from 0 to 1 or null (got True)"),
        ({"sides": 2}, "all_fives: unknown option(s) sides (options: players, target, first_dealer)"),
    ],
)
def test_bad_options_are_refused_with_the_game_and_value_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(OptionsError) as info:
        RULES.config(options)
    assert str(info.value) == message


def test_config_is_frozen_and_keyword_only() -> None:
    config = AllFivesConfig(players=3)
    with pytest.raises(AttributeError):
        config.players = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        AllFivesConfig(3)  # type: ignore[call-arg]


def test_deck_is_52_cards() -> None:
    deck = RULES.config({}).deck()
    assert len(deck) == 52 and set(deck) == set(standard_deck())


def test_a_deck_that_is_not_the_52_cards_is_refused() -> None:
    deck = list(standard_deck())
    deck[5] = deck[6]
    with pytest.raises(ValueError, match="each of the 52 cards once"):
        start(deck)


# --- 2.2 the deal -----------------------------------------------------------


def test_deal_three_each_then_three_each_from_eldest_then_expose_turn_up() -> None:
    deck = standard_deck()
    deal = start(deck, dealer=0)
    # Eldest hand is seat 1: deck[0:3], then the dealer deck[3:6], then again.
    assert deal.hands[1] == (*deck[0:3], *deck[6:9])
    assert deal.hands[0] == (*deck[3:6], *deck[9:12])
    assert deal.turn_up == deck[12] and deal.exposed == (deck[12],)
    assert all(deck[12] not in hand for hand in deal.hands)
    assert deal.trump is None and deal.phase is Phase.STAND_OR_BEG and deal.to_act == 1


def test_deal_three_players_eldest_first_dealer_last() -> None:
    deck = standard_deck()
    deal = start(deck, players=3, dealer=2)
    assert deal.hands[0] == (*deck[0:3], *deck[9:12])
    assert deal.hands[1] == (*deck[3:6], *deck[12:15])
    assert deal.hands[2] == (*deck[6:9], *deck[15:18])
    assert deal.turn_up == deck[18]
    assert deal.to_act == 0


def test_turn_up_joins_no_hand_and_is_never_played() -> None:
    deal = start(build_deck(hands={1: "AH KH QH JH TH 9H"}, turn_up="5H"))
    deal = deal.apply(Stand())
    assert all(card("5H") not in hand for hand in deal.hands)
    assert Play(card=card("5H")) not in deal.legal_actions()


def test_eldest_hand_stands_or_begs() -> None:
    deal = start(build_deck(turn_up="9D"))
    assert deal.legal_actions() == [Stand(), Beg()]
    assert deal.to_act == 1


def test_stand_makes_the_proposed_suit_trump() -> None:
    deal = start(build_deck(turn_up="9D")).apply(Stand())
    assert deal.trump is Suit.DIAMONDS and deal.phase is Phase.PLAY
    assert deal.to_act == 1 and deal.points == (0, 0)


def test_beg_then_dealer_gifts_or_runs() -> None:
    deal = start(build_deck(turn_up="9D")).apply(Beg())
    assert deal.to_act == 0 and deal.phase is Phase.GIFT_OR_RUN
    assert deal.legal_actions() == [Gift(), Run()]


def test_gift_scores_one_for_eldest_at_once_and_trump_stays() -> None:
    deal = start(build_deck(turn_up="9D")).apply(Beg()).apply(Gift())
    assert deal.trump is Suit.DIAMONDS and deal.phase is Phase.PLAY
    assert deal.points == (0, 1)
    assert deal.to_act == 1  # eldest hand leads


def test_gift_shows_at_once_in_the_running_score() -> None:
    match = new_match("all_fives", {"first_dealer": 0}, decks=RecordedDecks([build_deck(turn_up="9D")]))
    match = match.apply(Beg()).apply(Gift())
    assert match.scores == (0, 1)
    assert match.view(0).scores == (0, 1) and match.view(1).deal_points == (0, 1)


def test_gift_counts_in_the_deal_it_was_given() -> None:
    deal = start(build_deck(turn_up="9D", hands={1: "2C 3C 4C 6C 7C 8C", 0: "2S 3S 4S 6S 7S 8S"}))
    deal = deal.apply(Beg()).apply(Gift())
    while not deal.is_over:
        deal = deal.apply(deal.legal_actions()[0])
    # No diamond was dealt to either hand: only the gift scores.
    assert deal.points == (0, 1)
    assert deal.to_record([10, 20])["points"] == [0, 1] and deal.to_record([10, 20])["scores"] == [10, 21]


def test_gift_refused_when_it_would_reach_the_target() -> None:
    deal = start(build_deck(dealer=1, turn_up="9D"), dealer=1, scores=[60, 0]).apply(Beg())
    assert deal.to_act == 1
    assert deal.legal_actions() == [Run()]
    with pytest.raises(RuleError) as info:
        deal.check(Gift())
    assert info.value.code is ErrorCode.GIFT_NOT_ALLOWED
    assert str(info.value) == ("gift not allowed: it would bring seat 0 from 60 to 61, reaching the target 61; "
                               "the dealer must run the pack")


def test_gift_allowed_one_below_the_reach() -> None:
    deal = start(build_deck(dealer=1, turn_up="9D"), dealer=1, scores=[59, 70]).apply(Beg())
    # The dealer's own total does not matter; eldest would reach 60 < 61.
    assert deal.legal_actions() == [Gift(), Run()]


def test_gift_refused_follows_the_target_option() -> None:
    deal = start(build_deck(turn_up="9D"), scores=[0, 9], target=10).apply(Beg())
    assert deal.legal_actions() == [Run()]


def test_run_the_pack_once_new_suit_sets_trump() -> None:
    deck = build_deck(turn_up="9D", runs=["4S"], run_hands=[{1: "2H 3H 4H", 0: "5H 6H 7H"}])
    deal = start(deck).apply(Beg()).apply(Run())
    assert deal.trump is Suit.SPADES and deal.phase is Phase.PLAY
    assert deal.exposed == cards("9D 4S")
    assert deal.hands[1][6:] == cards("2H 3H 4H") and deal.hands[0][6:] == cards("5H 6H 7H")
    assert deal.recorded_action(1) == {"seat": 0, "type": "run", "exposed": ["4S"]}
    assert deal.to_act == 1
    assert card("4S") not in deal.hands[0] + deal.hands[1]


def test_run_repeats_while_the_refused_suit_shows() -> None:
    deck = build_deck(turn_up="9D", runs=["2D", "KD", "AC"])
    deal = start(deck).apply(Beg()).apply(Run())
    assert deal.trump is Suit.CLUBS
    assert deal.exposed == cards("9D 2D KD AC")
    assert deal.recorded_action(1) == {"seat": 0, "type": "run", "exposed": ["2D", "KD", "AC"]}
    # Nobody may beg again: play begins, eldest hand leads.
    assert deal.phase is Phase.PLAY and deal.to_act == 1
    assert {type(a) for a in deal.legal_actions()} == {Play}


def test_hand_sizes_after_runs_are_6_9_12() -> None:
    assert [len(h) for h in start(build_deck(turn_up="9D")).apply(Stand()).hands] == [6, 6]
    one = start(build_deck(runs=["AS"], turn_up="9D")).apply(Beg()).apply(Run())
    assert [len(h) for h in one.hands] == [9, 9]
    two = start(build_deck(runs=["2D", "AS"], turn_up="9D")).apply(Beg()).apply(Run())
    assert [len(h) for h in two.hands] == [12, 12]
    three = start(build_deck(players=3, runs=["3D", "4D", "AS"], turn_up="9D"), players=3).apply(Beg()).apply(Run())
    assert [len(h) for h in three.hands] == [15, 15, 15]
    assert three.view(0, [0, 0, 0]).hand_sizes == (15, 15, 15)


def test_exposed_cards_of_a_run_join_no_hand() -> None:
    deal = start(build_deck(turn_up="9D", runs=["2D", "AS"])).apply(Beg()).apply(Run())
    held = set(deal.hands[0]) | set(deal.hands[1])
    assert not held & set(cards("9D 2D AS"))
    # 12 dealt, then two rounds of 3 each and one exposed card each: 27 cards out, 3 of them exposed.
    assert len(held) == 24 and deal.used == 27


def _exhausting_deck(players: int) -> tuple[Card, ...]:
    # Two players: 13 cards dealt and exposed, each run round takes 7; five rounds leave 4 < 7.
    # Three players: 19, then 10 a round; three rounds leave 3 < 10.
    rounds = {2: ["2D", "3D", "4D", "5D", "6D"], 3: ["2D", "3D", "4D"]}[players]
    return build_deck(players=players, turn_up="9D", runs=rounds)


def test_redeal_when_the_pack_cannot_serve_a_run_round() -> None:
    deal = start(_exhausting_deck(2)).apply(Beg()).apply(Run())
    assert deal.is_void and deal.is_over and deal.to_act is None
    assert deal.points == (0, 0) and deal.trump is None
    assert deal.recorded_action(1) == {"seat": 0, "type": "run", "exposed": ["2D", "3D", "4D", "5D", "6D"]}
    assert deal.used == 48  # four cards left: not 3 each plus one to expose
    record = deal.to_record([7, 3])
    assert record["trump"] is None and record["tricks"] == [] and record["points"] == [0, 0]
    assert record["scores"] == [7, 3] and "redeal" not in record


def test_redeal_three_players_after_three_rounds() -> None:
    deal = start(_exhausting_deck(3), players=3).apply(Beg()).apply(Run())
    assert deal.is_void and deal.used == 49
    assert deal.recorded_action(1)["exposed"] == ["2D", "3D", "4D"]


def test_redeal_is_dealt_by_the_same_dealer_and_marked() -> None:
    second = build_deck(dealer=1, turn_up="9C")
    match = new_match("all_fives", {"first_dealer": 1},
                      decks=RecordedDecks([_exhausting_deck_for_dealer(1), second]))
    match = match.apply(Beg()).apply(Run())
    assert match.deal.number == 2 and match.deal.dealer == 1
    assert match.view(0).turn_up == card("9C") and match.to_act == 0
    record = match.to_record()
    first, redeal = record["deals"]
    assert first["actions"] == [{"seat": 0, "type": "beg"},
                                {"seat": 1, "type": "run", "exposed": ["2D", "3D", "4D", "5D", "6D"]}]
    assert first["trump"] is None and first["tricks"] == [] and first["points"] == [0, 0]
    assert "redeal" not in first and redeal["redeal"] is True and redeal["dealer"] == 1


def _exhausting_deck_for_dealer(dealer: int) -> tuple[Card, ...]:
    return build_deck(dealer=dealer, turn_up="9D", runs=["2D", "3D", "4D", "5D", "6D"])


def test_a_run_that_ends_on_the_last_possible_round_is_not_void() -> None:
    deal = start(build_deck(turn_up="9D", runs=["2D", "3D", "4D", "5D", "AS"])).apply(Beg()).apply(Run())
    assert not deal.is_void and deal.trump is Suit.SPADES and deal.used == 48
    assert [len(h) for h in deal.hands] == [21, 21]


def test_run_replayed_with_the_wrong_exposed_list_is_refused() -> None:
    deal = start(build_deck(turn_up="9D", runs=["2D", "AS"])).apply(Beg())
    deal.check(Run(exposed=cards("2D AS")))
    for wrong in ("2D", "AS", "2D AS 3C", ""):
        with pytest.raises(RuleError) as info:
            deal.check(Run(exposed=cards(wrong)))
        assert info.value.code is ErrorCode.MALFORMED_ACTION
        assert str(info.value) == f"run: the deck turns [2D AS], given exposed [{wrong}]"
    replayed = deal.apply(action_from_json({"type": "run", "exposed": ["2D", "AS"]}))
    assert replayed == deal.apply(Run())
