"""Round trips of tricktable.protocol.convert: cards, actions, options, views, results, reasons, events.

The wire form must lose nothing a seat may know: every conversion pair is
checked both ways, on every card, every action type, the options of every
game and the views of random games of every game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tricktable.protocol import convert, wire_cache
from tricktable.protocol.generated.tricktable.v1 import events_pb2, game_pb2, table_service_pb2
from tricktable.protocol.reasons import RejectReason, reason_for
from tricktable.rules import registry
from tricktable.rules.actions import (
    Action,
    Beg,
    Bid,
    Denomination,
    Discard,
    Gift,
    Jink,
    Pass,
    PassJink,
    PassRob,
    Play,
    Rob,
    Run,
    Stand,
)
from tricktable.rules.cards import ALL_CARDS, Card, Suit, cards
from tricktable.rules.errors import ErrorCode, NotationError, OptionsError
from tricktable.rules.events import (
    ACTION_EVENTS,
    BidMade,
    CardPlayed,
    ContractSet,
    DealScored,
    DealStarted,
    DealVoided,
    Discarded,
    Gifted,
    KittyTaken,
    Robbed,
    TrickWon,
    TrumpSet,
    event_of,
)
from tricktable.rules.events import Event as RulesEvent
from tricktable.rules.game import Contract, Result, SeatView, Trick
from tricktable.rules.registry import game_rules, games, new_match
from tricktable.rules.spoil_five_config import DealPattern


def _all_action_samples() -> list[Action]:
    samples: list[Action] = []
    samples += [Play(card=c) for c in ALL_CARDS]
    samples += [Play(card=Card.parse("JKB"), suit=s) for s in Suit]
    samples += [Rob(card=c) for c in ALL_CARDS[:52]]
    samples += [PassRob(), Jink(), PassJink(), Stand(), Beg(), Gift(), Pass()]
    samples += [Run(), Run(exposed=cards("4S 9S KD"))]
    samples += [Bid(tricks=t, denomination=d) for t in range(6, 11) for d in Denomination]
    samples += [Discard(cards=cards("4C 5C 6C JKF TD AH"))]
    return samples


@pytest.mark.parametrize("card", ALL_CARDS, ids=lambda c: c.code)
def test_every_card_round_trips(card: Card) -> None:
    assert convert.card_from_proto(convert.card_to_proto(card)) is card


def test_empty_card_is_no_card() -> None:
    assert convert.card_to_proto(None) == ""
    assert convert.card_from_proto("") is None


def test_every_action_round_trips() -> None:
    for action in _all_action_samples():
        message = convert.action_to_proto(action)
        assert message.WhichOneof("kind") == action.type
        again = convert.action_from_proto(game_pb2.Action.FromString(message.SerializeToString()))
        assert again == action, action


def test_action_oneof_cases_are_exactly_the_rules_action_types() -> None:
    cases = [f.name for f in game_pb2.Action.DESCRIPTOR.oneofs_by_name["kind"].fields]
    rules_types = sorted({a.type for a in _all_action_samples()})
    assert sorted(cases) == rules_types == sorted(convert.ACTION_TYPES)


TURN_UP = Card.parse("4S")


def _history_samples() -> list[Any]:
    """An action event of every action sample (seat 2 acting, dealer 3 of 4: eldest hand is seat 0), and hidden ones."""
    entries: list[Any] = [event_of(2, a, turn_up=TURN_UP, eldest=0) for a in _all_action_samples()]
    return [*entries, Robbed(seat=1, taken=TURN_UP, buried=None), Discarded(seat=3, cards=None)]


def test_history_entries_round_trip_including_hidden_fields() -> None:
    for event in _history_samples():
        message = game_pb2.SeatAction.FromString(convert.seat_action_to_proto(event).SerializeToString())
        assert convert.seat_action_from_proto(message, turn_up=TURN_UP, dealer=3, players=4) == event


def test_every_action_event_is_sampled_and_has_an_event_case() -> None:
    assert {type(e) for e in _history_samples()} == set(ACTION_EVENTS)
    assert {f.name for f in events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields} >= convert.ACTION_EVENT_CASES


def _event_samples() -> list[RulesEvent]:
    contract = Contract(seat=1, tricks=7, denomination=Denomination.NO_TRUMP)
    trick = Trick(leader=0, cards=cards("KH QH JH TH"), winner=0)
    return [
        *_history_samples(),
        DealStarted(number=2, dealer=1, redeal=True, turn_up=TURN_UP, scores=(5, 10), hand_sizes=(5, 5),
                    hands={1: cards("2C 3C 4C 5C 6C")}),
        ContractSet(contract=contract), TrumpSet(trump=None, no_trump=True), TrumpSet(trump=Suit.HEARTS),
        KittyTaken(seat=1, kitty=cards("4C 5C 6C 7C 8C 9C")), KittyTaken(seat=1, kitty=None),
        TrickWon(number=3, trick=trick, deal_points=(10, 0)),
        DealScored(number=2, points=(25, 5), scores=(40, 20), bonus=(2, Card.parse("5H"))),
        DealScored(number=2, points=(120, -40), scores=(120, -40), contract=contract),
        DealVoided(number=4),
    ]


def test_every_event_of_the_rules_has_its_wire_case_with_its_fields() -> None:
    cases = {f.name for f in events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields}
    for event in _event_samples():
        message = events_pb2.Event.FromString(convert.event_to_proto(event).SerializeToString())
        kind = message.WhichOneof("kind")
        assert kind in cases, event
        assert getattr(message, kind).ByteSize() > 0 or isinstance(event, DealVoided), event


def test_wire_events_carry_the_fields_the_old_wire_had() -> None:
    played = convert.event_to_proto(CardPlayed(seat=1, card=Card.parse("JKB"), named_suit=Suit.CLUBS)).card_played
    assert (played.seat, played.card, played.named_suit) == (1, "JKB", game_pb2.SUIT_CLUBS)
    robbed = convert.event_to_proto(Robbed(seat=2, taken=TURN_UP, buried=None)).robbed
    assert (robbed.seat, robbed.taken, robbed.buried) == (2, "4S", "")
    gifted = convert.event_to_proto(event_of(3, Gift(), eldest=0)).gifted
    assert (gifted.seat, gifted.receiver) == (3, 0)
    bid = convert.event_to_proto(BidMade(seat=0, tricks=7, denomination=Denomination.HEARTS)).bid_made
    assert (bid.tricks, bid.denomination) == (7, game_pb2.DENOMINATION_HEARTS)
    started = convert.event_to_proto(_event_samples()[len(_history_samples())]).deal_started
    assert (started.deal_number, list(started.hand), started.turn_up) == (2, ["2C", "3C", "4C", "5C", "6C"], "4S")
    spectators = DealStarted(number=1, dealer=0, redeal=False, turn_up=None, scores=(0, 0), hand_sizes=(5, 5),
                             hands={0: cards("2C 3C 4C 5C 6C"), 1: cards("2D 3D 4D 5D 6D")}).seen_by(None)
    assert list(convert.event_to_proto(spectators).deal_started.hand) == []
    scored = convert.event_to_proto(_event_samples()[-3]).deal_scored
    assert (scored.bonus.seat, scored.bonus.card, scored.HasField("contract")) == (2, "5H", False)
    voided = convert.event_to_proto(DealVoided(number=4)).deal_voided
    assert (voided.deal_number, voided.reason) == (4, "deal 4 is void; the same dealer deals again")


def test_hidden_rob_is_an_empty_card_and_cannot_be_played() -> None:
    message = convert.seat_action_to_proto(Robbed(seat=1, taken=TURN_UP, buried=None))
    assert message.action.rob.card == ""
    with pytest.raises(NotationError):
        convert.action_from_proto(message.action)


@pytest.mark.parametrize("message", [
    game_pb2.Action(),
    game_pb2.Action(play=game_pb2.Action.Play(card="1X")),
    game_pb2.Action(play=game_pb2.Action.Play()),
    game_pb2.Action(bid=game_pb2.Action.Bid(tricks=7)),
    game_pb2.Action(discard=game_pb2.Action.Discard(cards=["ZZ"])),
], ids=["empty", "bad-card", "no-card", "no-denomination", "bad-discard"])
def test_malformed_actions_raise_notation_error(message: game_pb2.Action) -> None:
    with pytest.raises(NotationError):
        convert.action_from_proto(message)


def test_action_ids_are_unique_and_stable() -> None:
    # A choice never carries a run's exposed cards (the rules fill them in), so Run() alone.
    samples = [a for a in _all_action_samples() if not (isinstance(a, Run) and a.exposed)]
    ids = [convert.action_id(a) for a in samples]
    assert len(set(ids)) == len(ids)
    legal = convert.legal_actions_to_proto(samples)
    assert [item.id for item in legal] == ids
    assert list(convert.legal_actions_from_proto(legal).values()) == samples
    assert convert.action_id(Bid(tricks=7, denomination=Denomination.NO_TRUMP)) == "bid-7-NT"
    assert convert.action_id(Play(card=Card.parse("JKB"), suit=Suit.HEARTS)) == "play-JKB-H"
    assert convert.action_id(Play(card=Card.parse("5H"))) == "play-5H"
    assert convert.action_id(Rob(card=Card.parse("2C"))) == "rob-2C"
    assert [convert.action_id(a) for a in (PassRob(), Run(), Pass())] == ["pass_rob", "run", "pass"]
    assert convert.action_id(Discard(cards=cards("JKB TD 4C"))) == "discard-4C-TD-JKB"
    assert convert.action_id(Discard(cards=cards("5C 4C"))) == convert.action_id(Discard(cards=cards("4C 5C")))


def test_the_game_conversion_asks_the_registry_at_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    value = convert.game_to_proto("cinq_cents")
    assert convert.game_from_proto(value) == "cinq_cents"
    monkeypatch.delitem(registry.GAME_MODULES, "cinq_cents")
    with pytest.raises(OptionsError, match="unknown game 'cinq_cents'"):
        convert.game_to_proto("cinq_cents")
    with pytest.raises(OptionsError, match=f"game must be one of GAME_TWENTY_FIVE, .*, not {int(value)}"):
        convert.game_from_proto(value)
    monkeypatch.undo()
    assert convert.game_from_proto(value) == "cinq_cents"


def test_enums_cover_the_rules() -> None:
    assert {convert.game_from_proto(convert.game_to_proto(g)) for g in games()} == set(games())
    assert len(game_pb2.Game.keys()) == len(games()) + 1
    for suit in Suit:
        assert convert.suit_from_proto(convert.suit_to_proto(suit)) is suit
    assert len(game_pb2.Suit.keys()) == len(Suit) + 1
    for denomination in Denomination:
        assert convert.denomination_from_proto(convert.denomination_to_proto(denomination)) is denomination
    assert len(game_pb2.Denomination.keys()) == len(Denomination) + 1


def test_every_error_code_has_a_rejection_reason_and_back() -> None:
    for code in ErrorCode:
        value = convert.rejection_reason_to_proto(code)
        assert value != table_service_pb2.REJECTION_REASON_UNSPECIFIED
        assert convert.rejection_reason_from_proto(value) == code.value
    assert convert.rejection_reason_from_proto(table_service_pb2.RejectionReason.ValueType(999)) == "UNKNOWN_999"


def test_the_reject_reasons_are_the_wire_enum_and_include_every_rules_code() -> None:
    names = {n.removeprefix("REJECTION_REASON_") for n in table_service_pb2.RejectionReason.DESCRIPTOR.values_by_name}
    assert names - {"UNSPECIFIED"} == {r.value for r in RejectReason}
    assert {c.value for c in ErrorCode} <= {r.value for r in RejectReason}
    for reason in RejectReason:
        assert convert.rejection_reason_from_proto(convert.rejection_reason_to_proto(reason)) == reason.value
    for code in ErrorCode:
        assert reason_for(code).value == code.value


def _non_none(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if v is not None}


@pytest.mark.parametrize("game", games())
def test_default_options_of_every_game_round_trip(game: str) -> None:
    options = game_rules(game).config({}).to_options()
    message = convert.options_to_proto(game, options)
    assert message.WhichOneof("game_options") == game
    assert not message.extra_json, "every option of docs/games.md has a typed field"
    back = convert.options_from_proto(game, game_pb2.TableOptions.FromString(message.SerializeToString()))
    assert back == _non_none(options)
    # The decoded options are accepted by the rules and resolve to the same config.
    assert game_rules(game).config(back).to_options() == options


def test_non_default_options_round_trip() -> None:
    cases: dict[str, dict[str, Any]] = {
        "twenty_five": {"players": 6, "sides": 3, "deal_pattern": "2-3", "robbing": False, "trump_at_will": True,
                        "target": 30, "first_dealer": 5},
        "forty_five": {"players": 5, "sides": 5, "jink": True, "target": 60, "deal_pattern": "3-2"},
        "all_fives": {"players": 3, "target": 31, "first_dealer": 0},
        "cinq_cents": {"target": 500, "bid_values": {str(t): {d.value: t * 100 + i for i, d in enumerate(Denomination)}
                                                    for t in range(6, 11)}},
    }
    for game, options in cases.items():
        assert convert.options_from_proto(game, convert.options_to_proto(game, options)) == options
        assert game_rules(game).config(options)


def test_every_deal_pattern_travels_as_the_wire_value_of_its_name() -> None:
    for pattern in DealPattern:
        message = convert.options_to_proto("twenty_five", {"deal_pattern": pattern.value})
        assert game_pb2.DealPattern.Name(message.twenty_five.deal_pattern) == f"DEAL_PATTERN_{pattern.name}"
        back = convert.options_from_proto("twenty_five", message)["deal_pattern"]
        assert back == pattern.value and type(back) is str


def test_a_deal_pattern_that_is_not_a_string_is_an_options_error() -> None:
    with pytest.raises(OptionsError, match="deal_pattern must be one of 3-2, 2-3"):
        convert.options_to_proto("forty_five", {"deal_pattern": ["3", "2"]})


def test_unknown_options_travel_as_json_and_come_back() -> None:
    options = {"target": 25, "house_rule": {"a": [1, 2]}}
    message = convert.options_to_proto("twenty_five", options)
    assert json.loads(message.extra_json["house_rule"]) == {"a": [1, 2]}
    assert convert.options_from_proto("twenty_five", message) == options


def test_options_of_the_wrong_type_or_game_are_refused() -> None:
    with pytest.raises(OptionsError):
        convert.options_to_proto("twenty_five", {"target": "25"})
    with pytest.raises(OptionsError):
        convert.options_to_proto("twenty_five", {"robbing": 1})
    with pytest.raises(OptionsError):
        convert.options_to_proto("forty_five", {"deal_pattern": "1-4"})
    with pytest.raises(OptionsError):
        convert.options_from_proto("all_fives", convert.options_to_proto("cinq_cents", {}))
    with pytest.raises(OptionsError):
        convert.options_to_proto("bridge", {})


def test_trick_contract_result_round_trip() -> None:
    for trick in (Trick(leader=1, cards=cards("5H 9H")), Trick(leader=0, cards=cards("JKB 4S AS KS"), winner=0,
                                                              named_suit=Suit.SPADES)):
        assert convert.trick_from_proto(convert.trick_to_proto(trick)) == trick
    contract = Contract(seat=3, tricks=8, denomination=Denomination.NO_TRUMP)
    assert convert.contract_from_proto(convert.contract_to_proto(contract)) == contract
    for result in (Result(status="finished", winners=(0,), scores=(25, 10), reason="target reached"),
                   Result(status="aborted", winners=(), scores=(-120, 40), reason="server stopped")):
        assert convert.result_from_proto(convert.result_to_proto(result)) == result


def _normalised(view: SeatView) -> SeatView:
    """Options with None dropped, extras through JSON (tuples become lists): the wire's equality."""
    return replace(view, options=_non_none(dict(view.options)),
                   extras={k: json.loads(json.dumps(v)) for k, v in view.extras.items()})


def _assert_view_round_trips(view: SeatView) -> None:
    message = convert.view_to_proto(view)
    wire = game_pb2.SeatView.FromString(message.SerializeToString())
    assert convert.view_from_proto(wire) == _normalised(view)


def _spectator(view: SeatView) -> SeatView:
    return replace(view, seat=convert.SPECTATOR_SEAT, hand=(), legal_actions=(), buried=None, kitty=(), discards=())


def _play_and_check(game: str, seed: int, max_steps: int, options: dict[str, Any] | None = None) -> None:
    match = new_match(game, options or {}, seed=f"convert-{seed}")
    rng = random.Random(seed)
    for _ in range(max_steps):
        for seat in range(match.config.players):
            _assert_view_round_trips(match.view(seat))
        _assert_view_round_trips(_spectator(match.view(0)))
        if match.is_over:
            return
        match = match.apply(rng.choice(match.legal_actions()))


@pytest.mark.parametrize("game", games())
def test_views_of_a_whole_game_round_trip(game: str) -> None:
    # Long enough for several deals of every game (Cinq Cents to 1000 would take thousands of steps).
    _play_and_check(game, seed=7, max_steps=300)


VARIANTS = [("forty_five", {"jink": True, "players": 6}), ("forty_five", {"players": 3}),
            ("twenty_five", {"players": 6, "sides": 3, "robbing": False}), ("all_fives", {"players": 3})]


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=lambda v: str(v))
def test_views_of_option_variants_round_trip(game: str, options: dict[str, Any]) -> None:
    for seed in range(6):
        _play_and_check(game, seed=seed, max_steps=120, options=options)


@settings(max_examples=20)
@given(game=st.sampled_from(games()), seed=st.integers(0, 10_000))
def test_views_of_random_games_round_trip(game: str, seed: int) -> None:
    _play_and_check(game, seed, max_steps=30)


def test_view_seat_and_events_carry_no_hidden_card_for_spectators() -> None:
    view = SeatView(game="twenty_five", options={}, seat=convert.SPECTATOR_SEAT, players=4, sides=((0, 2), (1, 3)),
                    deal_number=1, dealer=0, hand=(), to_act=1, legal_actions=(), scores=(0, 0), deal_points=(0, 0),
                    history=(Robbed(seat=1, taken=TURN_UP, buried=None),))
    message = convert.view_to_proto(view)
    assert not message.HasField("seat")
    assert message.history[0].action.rob.card == ""
    assert convert.event_to_proto(view.history[0]).robbed.buried == ""


def test_a_view_with_every_field_set_round_trips() -> None:
    from dataclasses import fields

    view = SeatView(
        game="cinq_cents", options={"target": 500, "players": 4}, seat=2, players=4, sides=((0, 2), (1, 3)),
        deal_number=3, dealer=1, hand=cards("JKB 5H TS"), to_act=2,
        legal_actions=(Play(card=Card.parse("JKB"), suit=Suit.HEARTS), Play(card=Card.parse("5H"))),
        scores=(120, -40), deal_points=(10, 0), trump=Suit.SPADES, no_trump=True, turn_up=Card.parse("4S"),
        exposed=cards("4S 9D"), current_trick=Trick(leader=1, cards=cards("AH")),
        tricks=(Trick(leader=0, cards=cards("KH QH JH TH"), winner=0),),
        history=(BidMade(seat=1, tricks=7, denomination=Denomination.NO_TRUMP),
                 Robbed(seat=3, taken=Card.parse("4S"), buried=None),
                 Discarded(seat=2, cards=cards("4C 5C 6C 7C 8C 9C"))),
        robbed_by=3, buried=Card.parse("2C"), jinked_by=0,
        bids=((1, (7, Denomination.NO_TRUMP)), (2, None)),
        contract=Contract(seat=1, tricks=7, denomination=Denomination.NO_TRUMP),
        kitty=cards("4C 5C 6C 7C 8C 9C"), discards=cards("4C 5C 6C 7C 8C 9C"), hand_sizes=(10, 9, 10, 10),
        result=Result(status="finished", winners=(1,), scores=(1000, 400), reason="target reached"),
        extras={"bonus": {"seat": 1, "card": "5S"}, "phase": "play"},
    )
    defaults = SeatView(game="twenty_five", options={}, seat=0, players=0, sides=(), deal_number=1, dealer=0,
                        hand=(), to_act=None, legal_actions=(), scores=(), deal_points=())
    unset = [f.name for f in fields(SeatView) if getattr(view, f.name) == getattr(defaults, f.name)]
    assert unset == [], "the sample must exercise every field"
    _assert_view_round_trips(view)


def _at_the_discard() -> SeatView:
    match = new_match("cinq_cents", {}, seed="convert-discard")
    while match.legal_actions()[0].type != "discard":
        match = match.apply(match.legal_actions()[0])
    seat = match.to_act
    assert seat is not None
    return match.view(seat)


def test_a_discard_view_travels_as_a_choice_and_decodes_to_every_legal_discard() -> None:
    view = _at_the_discard()
    message = game_pb2.SeatView.FromString(convert.view_to_proto(view).SerializeToString())
    assert not message.legal_actions
    assert list(message.discard_choice.cards) == list(message.hand) and message.discard_choice.count == 6
    assert convert.view_from_proto(message).legal_actions == view.legal_actions  # the SDK's bots still get all 8008
    enumerated = convert.view_to_proto(view, enumerate_discards=True)
    assert len(enumerated.legal_actions) == 8008 and not enumerated.HasField("discard_choice")


def test_a_discard_choice_whose_count_fits_no_card_is_a_notation_error() -> None:
    with pytest.raises(NotationError):
        convert.discard_choice_from_proto(game_pb2.DiscardChoice(cards=["5H", "6H"], count=3))
    with pytest.raises(NotationError):
        convert.discard_choice_from_proto(game_pb2.DiscardChoice(cards=["5H", "XX"], count=1))


@pytest.fixture
def empty_memos() -> Iterator[None]:
    """The decoders' memos empty for the test, and as they were after it (other tests' decodings stay kept)."""
    memos: list[dict[Any, Any]] = [wire_cache.ACTIONS_DECODED, wire_cache.LEGAL_DECODED, wire_cache.TRICKS_DECODED,
                                   wire_cache.SEAT_ACTIONS_DECODED]
    saved = [dict(memo) for memo in memos]
    for memo in memos:
        memo.clear()
    yield
    for memo, kept in zip(memos, saved, strict=True):
        memo.clear()
        memo.update(kept)


@pytest.mark.usefixtures("empty_memos")
def test_an_action_met_before_is_decoded_once_and_a_full_memo_forgets_its_oldest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire_cache, "MAX_CONVERTED_KEPT", 2)
    five, six, seven = (convert.action_to_proto(Play(card=Card.parse(code))) for code in ("5H", "6H", "7H"))
    first = convert.action_from_proto(five)
    again = game_pb2.Action()
    again.CopyFrom(five)
    assert convert.action_from_proto(again) is first  # the same wire bytes: the same frozen action
    assert convert.action_from_proto(six) == Play(card=Card.parse("6H"))
    assert convert.action_from_proto(seven) == Play(card=Card.parse("7H"))  # the memo is full: 5H goes
    assert list(wire_cache.ACTIONS_DECODED.values()) == [Play(card=Card.parse("6H")), Play(card=Card.parse("7H"))]
    with pytest.raises(NotationError):
        convert.action_from_proto(game_pb2.Action())  # a bad message is refused every time, never kept
    assert len(wire_cache.ACTIONS_DECODED) == 2


@pytest.mark.usefixtures("empty_memos")
def test_a_legal_action_entry_met_before_is_read_once_by_its_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[game_pb2.Action] = []
    decode = convert.action_from_proto

    def counted(message: game_pb2.Action) -> Action:
        decoded.append(message)
        return decode(message)

    monkeypatch.setattr(convert, "action_from_proto", counted)
    five, six = (Play(card=Card.parse(code)) for code in ("5H", "6H"))
    first = convert.legal_actions_from_proto(convert.legal_actions_to_proto([five, six]))
    again = convert.legal_actions_from_proto(
        [table_service_pb2.LegalAction.FromString(item.SerializeToString())
         for item in convert.legal_actions_to_proto([six, five])])
    assert len(decoded) == 2  # each entry decoded once; the second decision's entries came from the memo
    assert list(first) == ["play-5H", "play-6H"] and list(again) == ["play-6H", "play-5H"]  # each decision's order
    assert again["play-5H"] is first["play-5H"] and first["play-5H"] == five
    renamed = table_service_pb2.LegalAction(id="play-5H", name="five of hearts", action=convert.action_to_proto(five))
    assert convert.legal_actions_from_proto([renamed]) == {"play-5H": five}
    assert len(decoded) == 3  # another entry (its name differs): read on its own
    with pytest.raises(NotationError):
        convert.legal_actions_from_proto([table_service_pb2.LegalAction(id="bad")])  # refused, never kept
    assert len(wire_cache.LEGAL_DECODED) == 3


@pytest.mark.usefixtures("empty_memos")
def test_a_trick_met_before_is_decoded_once() -> None:
    trick = Trick(leader=1, cards=cards("5H 6H 7H 8H"), winner=3)
    first = convert.trick_from_proto(convert.trick_to_proto(trick))
    again = convert.trick_from_proto(game_pb2.Trick.FromString(convert.trick_to_proto(trick).SerializeToString()))
    assert first == trick and again is first  # the same wire bytes in a later view: the same frozen trick
    assert convert.trick_from_proto(game_pb2.Trick(leader=1, cards=["5H"])) == Trick(leader=1, cards=cards("5H"))


@pytest.mark.usefixtures("empty_memos")
def test_a_history_entry_met_before_is_decoded_once_but_a_rob_and_a_gift_follow_their_deal() -> None:
    play = convert.seat_action_to_proto(CardPlayed(seat=2, card=Card.parse("5H"), named_suit=None))
    first = convert.seat_action_from_proto(play, turn_up=TURN_UP, dealer=0, players=4)
    assert convert.seat_action_from_proto(play, turn_up=None, dealer=3, players=4) is first
    rob = convert.seat_action_to_proto(Robbed(seat=1, taken=TURN_UP, buried=Card.parse("2C")))
    for turn_up in (Card.parse("9D"), Card.parse("AS")):  # the same bytes, another deal's turn-up
        assert convert.seat_action_from_proto(rob, turn_up=turn_up, dealer=0, players=4) == Robbed(
            seat=1, taken=turn_up, buried=Card.parse("2C"))
    gift = convert.seat_action_to_proto(Gifted(seat=0, receiver=1))
    for dealer in (0, 1):  # the same bytes, another deal's eldest hand
        assert convert.seat_action_from_proto(gift, turn_up=None, dealer=dealer, players=3) == Gifted(
            seat=0, receiver=(dealer + 1) % 3)


def test_a_card_list_with_a_bad_card_is_a_notation_error_naming_it() -> None:
    assert convert.cards_from_proto(["5H", "JKB"]) == cards("5H JKB")
    with pytest.raises(NotationError, match="'XX'"):
        convert.cards_from_proto(["5H", "XX"])
    with pytest.raises(NotationError, match="''"):
        convert.cards_from_proto(["5H", ""])
