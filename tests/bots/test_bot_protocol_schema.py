"""docs/bot-protocol.schema.json against the messages the adapters really write, in every game, and bad answers.

Every decision of a whole random match of each game is written as the adapters write it and checked
against the schema, with the ``hello`` before and the ``end`` after; answers are checked both ways (the
schema and :func:`tricktable.bots.external.messages.parse_answer` agree on what is an answer).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tricktable.bots.external import messages
from tricktable.rules.match import play_out
from tricktable.rules.registry import new_match

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
OPTIONS: dict[str, dict[str, Any]] = {"twenty_five": {}, "forty_five": {"players": 6, "sides": 3},
                                      "all_fives": {}, "cinq_cents": {"target": 500}}


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_every_message_of_a_whole_match_matches_the_schema(game: str) -> None:
    rng = random.Random(game)
    written: list[dict[str, Any]] = []
    kinds: set[str] = set()

    def choose(match: Any, seat: int) -> Any:
        view = match.view(seat)
        if not written:
            written.append(messages.hello(view, "schema"))
        written.append(messages.decision(len(written), view, 1000))
        action = rng.choice(view.legal_actions)
        kinds.add(action.type)
        if len(written) % 7 == 0:
            written.append(messages.error(len(written), "late", "no answer within 1000 ms", action))
        return action

    match = play_out(new_match(game, OPTIONS[game], seed=f"schema-{game}"), choose, max_deals=6)
    if match.result is None:  # random play may go on for long: the end of an aborted game is checked then
        match = match.abort("deal limit of the test")
    assert match.result is not None
    written.append(messages.end(match.result))
    for message in written:
        errors = sorted(VALIDATOR.iter_errors(json.loads(messages.encode(message))), key=str)
        assert not errors, f"{message['type']}: {errors[0].message} at {list(errors[0].absolute_path)}"
    assert "play" in kinds


@pytest.mark.parametrize("answer", [{"action": "play-5H"}, {"action": "pass", "decision": 3},
                                    {"action": "bid-7-NT", "note": "strong clubs", "values": {"bid-7-NT": 0.6}}])
def test_an_answer_the_schema_accepts(answer: dict[str, Any]) -> None:
    assert VALIDATOR.is_valid(answer)


@pytest.mark.parametrize("answer", [{"move": "play-5H"}, {"action": ""}, {"action": 5}, ["play-5H"],
                                    {"action": "play-5H", "values": {"play-5H": "high"}}])
def test_an_answer_the_schema_refuses_is_a_fault_of_the_adapter_too(answer: object) -> None:
    assert not VALIDATOR.is_valid(answer)
    raw = json.dumps(answer)
    try:
        parsed = messages.parse_answer(raw, ())
    except messages.AnswerFault as fault:
        assert fault.kind in messages.FAULTS
    else:
        raise AssertionError(f"{raw} was taken as {parsed}")
