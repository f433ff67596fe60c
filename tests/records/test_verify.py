"""tricktable.rules.verify: random records of every game are accepted; a record with one corrupted field is rejected,
and the first discrepancy names the field, the deal and the action."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.games_support import LAYOUTS, layout_id, random_record
from tricktable.rules.record import RecordFieldError, parse_record
from tricktable.rules.verify import Discrepancy, verify_record

Record = dict[str, Any]


@functools.cache
def _cached(game: str, options_json: str, seed: str, max_actions: int | None) -> str:
    options = json.loads(options_json)
    return json.dumps(random_record(game, options, seed, **({} if max_actions is None else
                                                           {"max_actions": max_actions})))


def record_of(game: str, options: dict[str, Any] | None = None, seed: str = "v", *,
              max_actions: int | None = None) -> Record:
    """A fresh (deep) copy of a random record, cached per arguments."""
    text = _cached(game, json.dumps(options or {}, sort_keys=True), seed, max_actions)
    data: Record = json.loads(text)
    return data


def find_record(game: str, options: dict[str, Any], wanted: Callable[[Record], bool], tries: int = 60) -> Record:
    """The first random record (seeds f0, f1, ...) that has the feature ``wanted`` looks for."""
    for i in range(tries):
        data = record_of(game, options, f"f{i}")
        if wanted(data):
            return data
    pytest.fail(f"no {game} record with the wanted feature in {tries} seeds")


def rejected(data: Record) -> Discrepancy:
    found = verify_record(data)
    assert found is not None, "the corrupted record was accepted"
    return found


def first_action(data: Record, kind: str) -> tuple[int, int]:
    """(deal index, action index) of the first action of type ``kind``."""
    for i, deal in enumerate(data["deals"]):
        for k, action in enumerate(deal["actions"]):
            if action["type"] == kind:
                return i, k
    raise LookupError(kind)


def has_action(kind: str) -> Callable[[Record], bool]:
    def wanted(data: Record) -> bool:
        try:
            first_action(data, kind)
        except LookupError:
            return False
        return True
    return wanted


# --- valid records --------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_id)
def test_verify_accepts_random_records(layout: tuple[str, dict[str, Any]]) -> None:
    game, options = layout
    for seed in ("a", "b"):
        data = record_of(game, options, seed)
        assert verify_record(data) is None, (seed, str(verify_record(data)))


@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_id)
def test_verify_accepts_records_aborted_part_way_through_a_deal(layout: tuple[str, dict[str, Any]]) -> None:
    game, options = layout
    for cut in (0, 3, 17, 40):
        data = record_of(game, options, "cut", max_actions=cut)
        if data["result"]["status"] != "aborted":
            continue
        assert data["result"]["winners"] == []
        assert verify_record(data) is None, (cut, str(verify_record(data)))


def test_verify_accepts_hands_and_kitty_in_any_order() -> None:
    data = record_of("twenty_five", {"players": 4})
    for hand in data["deals"][0]["hands"].values():
        hand.reverse()
    assert verify_record(data) is None


def test_verify_accepts_an_aborted_record_without_the_deal_dealt_last() -> None:
    data = record_of("forty_five", {"players": 4}, max_actions=0)
    data["result"] = {"status": "aborted", "winners": [], "scores": [0, 0], "reason": "server stopped"}
    assert verify_record(data) is None
    data2 = record_of("forty_five", {"players": 4}, "a")
    # A finished game whose last deal is removed, then called aborted: the deal dealt next may be left out.
    if data2["result"]["status"] == "finished" and len(data2["deals"]) > 1:
        data2["deals"].pop()
        data2["result"] = {"status": "aborted", "winners": [], "scores": data2["deals"][-1]["scores"],
                           "reason": "player left"}
        assert verify_record(data2) is None


# --- one corrupted field each -----------------------------------------------------


def test_verify_flags_wrong_trick_winner() -> None:
    data = record_of("twenty_five", {"players": 4})
    trick = data["deals"][0]["tricks"][1]
    trick["winner"] = (trick["winner"] + 1) % 4
    found = rejected(data)
    assert found.field == "deals[0].tricks[1].winner"
    assert found.deal == 1 and found.action is None
    assert "deal 1: deals[0].tricks[1].winner: differs" in str(found)


def test_verify_flags_wrong_trick_cards() -> None:
    data = record_of("forty_five", {"players": 3})
    cards = data["deals"][0]["tricks"][0]["cards"]
    cards[0], cards[1] = cards[1], cards[0]
    assert rejected(data).field == "deals[0].tricks[0].cards"


def test_verify_flags_wrong_score() -> None:
    data = record_of("twenty_five", {"players": 4})
    data["deals"][0]["scores"][0] += 5
    found = rejected(data)
    assert found.field == "deals[0].scores"
    assert found.expected is not None and found.recorded is not None and found.expected != found.recorded


def test_verify_flags_wrong_points() -> None:
    data = record_of("all_fives", {"players": 2})
    data["deals"][0]["points"][1] += 1
    assert rejected(data).field == "deals[0].points"


def _holding(data: Record, deal: int, seat: int) -> set[str]:
    return set(data["deals"][deal]["hands"][str(seat)])


@pytest.mark.parametrize("game", ["twenty_five", "forty_five", "all_fives", "cinq_cents"])
def test_verify_flags_an_illegal_card(game: str) -> None:
    data = record_of(game, {})
    i, k = first_action(data, "play")
    action = data["deals"][i]["actions"][k]
    other = (action["seat"] + 1) % len(data["seats"])
    action["card"] = sorted(_holding(data, i, other) - _holding(data, i, action["seat"]))[0]
    found = rejected(data)
    assert found.field == f"deals[{i}].actions[{k}]"
    assert (found.deal, found.action) == (i + 1, k)
    assert "illegal action: CARD_NOT_IN_HAND" in found.message


def test_verify_flags_an_action_by_the_wrong_seat() -> None:
    data = record_of("forty_five", {"players": 4})
    i, k = first_action(data, "play")
    action = data["deals"][i]["actions"][k]
    action["seat"] = (action["seat"] + 1) % 4
    found = rejected(data)
    assert found.field == f"deals[{i}].actions[{k}]"
    assert "NOT_YOUR_TURN" in found.message


def test_verify_flags_a_rob_burying_a_card_not_held() -> None:
    data = find_record("twenty_five", {"players": 4}, has_action("rob"))
    i, k = first_action(data, "rob")
    action = data["deals"][i]["actions"][k]
    other = (action["seat"] + 1) % 4
    action["card"] = sorted(_holding(data, i, other))[0]
    found = rejected(data)
    assert (found.field, found.deal, found.action) == (f"deals[{i}].actions[{k}]", i + 1, k)
    assert "illegal action" in found.message


def test_verify_flags_a_rob_by_a_seat_without_the_ace() -> None:
    data = record_of("twenty_five", {"players": 4}, "norob")
    deal = data["deals"][0]
    if any(a["type"] in ("rob", "pass_rob") for a in deal["actions"]):
        pytest.skip("this seed has a rob in deal 1")
    # Any seat may not rob in a deal where nobody robbed: the ace holder declined or it was not dealt.
    # Seats other than the ace holder are refused outright; pick the leader of the first trick.
    first = deal["actions"][0]
    deal["actions"].insert(0, {"seat": first["seat"], "type": "rob", "card": deal["hands"][str(first["seat"])][0]})
    ace_holder_declined = verify_record(data) is None
    if ace_holder_declined:
        pytest.skip("the first player held the ace of trumps")
    found = rejected(data)
    assert (found.field, found.action) == ("deals[0].actions[0]", 0)
    assert "ROB_NOT_ALLOWED" in found.message


def test_verify_flags_a_removed_rob() -> None:
    data = find_record("forty_five", {"players": 4}, has_action("rob"))
    i, k = first_action(data, "rob")
    data["deals"][i]["actions"].pop(k)
    found = rejected(data)
    # Without the rob the turn-up never reaches the robber's hand: a later play of theirs becomes illegal,
    # or (a dealer's decision) the action at the rob's place is refused.
    assert found.deal == i + 1, str(found)
    assert found.action is not None and found.action >= k, str(found)


def test_verify_flags_wrong_hands_for_the_deck() -> None:
    data = record_of("forty_five", {"players": 4})
    hands = data["deals"][0]["hands"]
    hands["0"][0], hands["1"][0] = hands["1"][0], hands["0"][0]
    found = rejected(data)
    assert found.field == 'deals[0].hands["0"]'
    assert found.action is None and found.deal == 1


def test_verify_flags_wrong_turn_up_and_trump() -> None:
    data = record_of("twenty_five", {"players": 4})
    deal = data["deals"][0]
    deal["turn_up"] = next(c for c in deal["deck"][30:] if c != deal["turn_up"])
    assert rejected(data).field == "deals[0].turn_up"
    data = record_of("twenty_five", {"players": 4})
    deal = data["deals"][0]
    deal["trump"] = next(s for s in "CDHS" if s != deal["trump"])
    assert rejected(data).field == "deals[0].trump"


def test_verify_flags_a_deck_that_is_not_a_shuffle_of_the_games_deck() -> None:
    data = record_of("twenty_five", {"players": 4})
    data["deals"][0]["deck"][10] = data["deals"][0]["deck"][11]
    found = rejected(data)
    assert found.field == "deals[0].deck"
    assert "repeated" in found.message and "missing" in found.message


def test_verify_flags_wrong_run_exposed() -> None:
    data = find_record("all_fives", {"players": 2}, has_action("run"))
    i, k = first_action(data, "run")
    action = data["deals"][i]["actions"][k]
    exposed = action["exposed"]
    spare = next(c for c in data["deals"][i]["deck"] if c not in exposed)
    action["exposed"] = [*exposed[:-1], spare]
    found = rejected(data)
    assert (found.deal, found.action) == (i + 1, k)
    assert found.field.startswith(f"deals[{i}].actions[{k}]")


def test_verify_flags_wrong_contract_and_kitty() -> None:
    data = find_record("cinq_cents", {}, lambda d: any(deal.get("contract") for deal in d["deals"]))
    i = next(n for n, deal in enumerate(data["deals"]) if deal.get("contract"))
    data["deals"][i]["contract"]["tricks"] = 6 + (data["deals"][i]["contract"]["tricks"] - 5) % 5
    found = rejected(data)
    assert found.field == f"deals[{i}].contract.tricks"
    data = find_record("cinq_cents", {}, lambda d: any(deal.get("contract") for deal in d["deals"]))
    kitty = data["deals"][0]["kitty"]
    hand = data["deals"][0]["hands"]["0"]
    kitty[0], hand[0] = hand[0], kitty[0]
    assert rejected(data).field in ('deals[0].hands["0"]', "deals[0].kitty")


def test_verify_flags_wrong_bonus() -> None:
    data = find_record("forty_five", {"players": 4}, lambda d: d["deals"][0].get("bonus") is not None)
    data["deals"][0]["bonus"]["seat"] = (data["deals"][0]["bonus"]["seat"] + 1) % 4
    assert rejected(data).field == "deals[0].bonus.seat"
    data = find_record("forty_five", {"players": 4}, lambda d: d["deals"][0].get("bonus") is not None)
    del data["deals"][0]["bonus"]
    found = rejected(data)
    assert found.field == "deals[0].bonus" and "missing" in found.message


def test_verify_flags_a_field_the_game_does_not_have() -> None:
    data = record_of("twenty_five", {"players": 4})
    data["deals"][0]["contract"] = {"seat": 0, "tricks": 6, "suit": "S"}
    assert rejected(data).field == "deals[0].contract"


def test_verify_flags_first_dealer_mismatch() -> None:
    data = record_of("forty_five", {"players": 4})
    data["options"]["first_dealer"] = (data["options"]["first_dealer"] + 1) % 4
    found = rejected(data)
    assert found.field == "deals[0].dealer"


def test_verify_flags_invalid_and_missing_options() -> None:
    data = record_of("twenty_five", {"players": 4})
    data["options"]["players"] = 7
    found = rejected(data)
    assert found.field == "options" and "invalid options" in found.message
    data = record_of("twenty_five", {"players": 4})
    del data["options"]["target"]
    found = rejected(data)
    assert found.field == "options.target" and "missing" in found.message


def test_verify_flags_missing_and_extra_deals() -> None:
    data = find_record("forty_five", {"players": 2}, lambda d: d["result"]["status"] == "finished")
    data["deals"].pop()
    found = rejected(data)
    assert found.field == "deals" and "missing deal" in found.message
    data = find_record("forty_five", {"players": 2}, lambda d: d["result"]["status"] == "finished")
    data["deals"].append(copy.deepcopy(data["deals"][-1]))
    found = rejected(data)
    assert found.field == f"deals[{len(data['deals']) - 1}]" and "extra deal" in found.message


def test_verify_flags_missing_and_extra_actions() -> None:
    data = record_of("forty_five", {"players": 4})
    data["deals"][0]["actions"].pop()
    found = rejected(data)
    assert found.field == "deals[0].actions" and "missing actions" in found.message
    data = record_of("forty_five", {"players": 4})
    deal = data["deals"][0]
    deal["actions"].append(copy.deepcopy(deal["actions"][-1]))
    found = rejected(data)
    assert found.field == f"deals[0].actions[{len(deal['actions']) - 1}]" and "extra action" in found.message


def test_verify_flags_wrong_result() -> None:
    data = find_record("forty_five", {"players": 3}, lambda d: d["result"]["status"] == "finished")
    data["result"]["winners"] = [(data["result"]["winners"][0] + 1) % 3]
    assert rejected(data).field == "result.winners"
    data = find_record("forty_five", {"players": 3}, lambda d: d["result"]["status"] == "finished")
    data["result"]["scores"][0] += 5
    assert rejected(data).field == "result.scores"
    data = find_record("forty_five", {"players": 3}, lambda d: d["result"]["status"] == "finished")
    data["result"]["status"] = "aborted"
    data["result"]["winners"] = []
    assert rejected(data).field == "result.status"


def test_verify_flags_aborted_scores_that_the_rules_did_not_score() -> None:
    data = record_of("twenty_five", {"players": 4}, "cut", max_actions=17)
    assert data["result"]["status"] == "aborted"
    data["result"]["scores"][1] += 5
    assert rejected(data).field == "result.scores"


# --- shape errors name the field path ----------------------------------------------


@pytest.mark.parametrize(("mutate", "path", "words"), [
    (lambda d: d["deals"][0]["points"].__setitem__(0, 5.0), "deals[0].points[0]", "expected an integer"),
    (lambda d: d["deals"][0]["points"].__setitem__(0, True), "deals[0].points[0]", "expected an integer"),
    (lambda d: d["deals"][0].__setitem__("redeal", 1), "deals[0].redeal", "expected a boolean"),
    (lambda d: d["deals"][0]["actions"][1].__setitem__("card", "1S"), "deals[0].actions[1].card", "not a card: '1S'"),
    (lambda d: d["deals"][0]["actions"][1].__setitem__("type", "fold"), "deals[0].actions[1].type", "unknown"),
    (lambda d: d["deals"][0]["actions"][1].__setitem__("seat", "1"), "deals[0].actions[1].seat", "an integer"),
    (lambda d: d["deals"][0]["actions"][1].__setitem__("extra", 1), "deals[0].actions[1].extra", "no field"),
    (lambda d: d["deals"][0]["tricks"][0].pop("winner"), "deals[0].tricks[0].winner", "missing"),
    (lambda d: d.__setitem__("format", "tricktable-record/2"), "format", "expected 'tricktable-record/1'"),
    (lambda d: d.__setitem__("game", "euchre"), "game", "unknown game"),
    (lambda d: d.pop("result"), "result", "missing"),
    (lambda d: d["result"].__setitem__("status", "won"), "result.status", "finished"),
    (lambda d: d["deals"][0].__setitem__("trump", "X"), "deals[0].trump", "not a trump"),
    (lambda d: d["deals"][0]["hands"].__setitem__("0", "5H"), 'deals[0].hands["0"]', "expected a list"),
])
def test_record_shape_errors_name_the_field(mutate: Callable[[Record], object], path: str, words: str) -> None:
    data = record_of("twenty_five", {"players": 4})
    mutate(data)
    with pytest.raises(RecordFieldError) as caught:
        parse_record(data)
    assert caught.value.path == path
    assert words in str(caught.value)
    found = rejected(data)
    assert found.field == path and words in str(found)


def test_record_that_is_not_an_object_is_rejected() -> None:
    found = verify_record([1, 2])
    assert found is not None and "expected an object" in found.message


def test_parse_record_reads_a_valid_record_into_typed_fields() -> None:
    data = record_of("twenty_five", {"players": 4})
    record = parse_record(data)
    assert record.game == "twenty_five"
    assert record.deals[0].number == 1
    assert len(record.deals[0].hands) == 4
    assert all(len(hand) == 5 for hand in record.deals[0].hands.values())
    assert record.result.status in ("finished", "aborted")
    assert record.deals[0].actions[0].action.type in ("play", "rob", "pass_rob")


# --- void deals and redeals ---------------------------------------------------------


def _void_all_fives() -> tuple[Record, int]:
    data = random_record("all_fives", {"players": 3}, "void21", max_deals=30)
    index = next(i for i, deal in enumerate(data["deals"]) if deal.get("redeal"))
    return data, index


def test_verify_accepts_an_all_fives_void_deal_and_its_redeal() -> None:
    data, index = _void_all_fives()
    void = data["deals"][index - 1]
    assert void["trump"] is None and void["tricks"] == [] and void["points"] == [0, 0, 0]
    assert void["actions"][-1]["type"] == "run"
    assert data["deals"][index]["dealer"] == void["dealer"]
    assert verify_record(data) is None


def test_verify_flags_a_redeal_without_its_flag_and_a_void_run_changed() -> None:
    data, index = _void_all_fives()
    data["deals"][index]["redeal"] = False
    assert rejected(data).field == f"deals[{index}].redeal"
    data, index = _void_all_fives()
    del data["deals"][index]["redeal"]
    assert rejected(data).field == f"deals[{index}].redeal"
    data, index = _void_all_fives()
    run = data["deals"][index - 1]["actions"][-1]
    run["exposed"] = run["exposed"][:-1]
    found = rejected(data)
    assert found.deal == index and found.field.startswith(f"deals[{index - 1}].actions[")


def _cinq_cents_all_pass() -> Record:
    """A Cinq Cents match whose first deal is passed out by all four, then played at random for a deal."""
    import random

    from tricktable.rules.actions import Pass
    from tricktable.rules.registry import new_match

    match = new_match("cinq_cents", {"first_dealer": 0}, seed="allpass")
    rng = random.Random(1)
    while len(match.finished) < 2:
        legal = match.legal_actions()
        match = match.apply(Pass() if not match.finished and Pass() in legal else rng.choice(legal))
    return match.abort("test").to_record(seed="allpass")


def test_verify_accepts_a_cinq_cents_deal_passed_out_and_redealt() -> None:
    data = _cinq_cents_all_pass()
    void = data["deals"][0]
    assert [a["type"] for a in void["actions"]] == ["pass"] * 4
    assert void["trump"] is None and void["contract"] is None and void["points"] == [0, 0]
    assert data["deals"][1]["redeal"] is True and data["deals"][1]["dealer"] == 0
    assert verify_record(data) is None


def test_verify_flags_a_cinq_cents_redeal_by_the_wrong_dealer_and_a_bad_discard() -> None:
    data = _cinq_cents_all_pass()
    data["deals"][1]["dealer"] = 1
    assert rejected(data).field == "deals[1].dealer"
    data = _cinq_cents_all_pass()
    i, k = first_action(data, "discard")
    discard = data["deals"][i]["actions"][k]
    declarer = discard["seat"]
    discard["cards"] = data["deals"][i]["hands"][str((declarer + 1) % 4)][:6]
    found = rejected(data)
    assert (found.field, found.action) == (f"deals[{i}].actions[{k}]", k)
    assert found.expected is not None and "8008 legal actions" in found.expected


def test_verify_reports_a_bad_deck_of_a_later_deal_in_its_place() -> None:
    data = find_record("forty_five", {"players": 4}, lambda d: len(d["deals"]) >= 2)
    data["deals"][1]["deck"][0] = data["deals"][1]["deck"][1]
    found = rejected(data)
    assert found.field == "deals[1].deck" and found.deal == 2


def test_verify_wants_the_first_dealer_drawn_written_out() -> None:
    data = record_of("twenty_five", {"players": 4})
    data["options"]["first_dealer"] = None
    found = rejected(data)
    assert found.field == "options.first_dealer"


# --- never a traceback ---------------------------------------------------------------

_ODD_VALUES: list[object] = [None, True, False, 0, -1, 7, 99, 1.5, "", "5H", "JKB", "NT", "x", [], [1], ["5H"], {},
                             {"seat": 0}]


def _leaf_paths(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, sub in value.items():
            out += _leaf_paths(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            out += _leaf_paths(sub, (*path, i))
    return out


@given(st.sampled_from(["twenty_five", "forty_five", "all_fives", "cinq_cents"]), st.integers(0, 10**6),
       st.sampled_from(_ODD_VALUES), st.booleans())
def test_verify_never_raises_on_a_mangled_record(game: str, where: int, value: object, delete: bool) -> None:
    data = record_of(game, {"players": 3} if game in ("forty_five", "all_fives") else {}, "fuzz")
    paths = _leaf_paths(data)[1:]
    path = paths[where % len(paths)]
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    if delete and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = copy.deepcopy(value)
    found = verify_record(data)
    assert found is None or isinstance(found, Discrepancy)
    assert found is None or str(found)


def test_verify_flags_a_wrong_kitty_alone() -> None:
    data = record_of("cinq_cents", {})
    deal = data["deals"][0]
    deal["kitty"][2] = deal["hands"]["1"][0]
    found = rejected(data)
    assert (found.field, found.deal, found.action) == ("deals[0].kitty", 1, None)


def test_verify_flags_winners_in_an_aborted_record() -> None:
    data = record_of("forty_five", {"players": 4}, "cut", max_actions=17)
    assert data["result"]["status"] == "aborted"
    data["result"]["winners"] = [0]
    assert rejected(data).field == "result.winners"
