"""The tournament file's validation (pydantic): one-line errors naming the field, stable fingerprints, the schema."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tricktable.tournament.config import ConfigError, config_from_mapping, elo_to_score, schema_text

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "docs" / "tournament.schema.json"
BASE: dict[str, Any] = {"game": "all_fives", "entrants": ["random", "first-legal"]}


@pytest.mark.parametrize(("fields", "message"), [
    ({"games": "two"}, "games: Input should be a valid integer"),
    ({"games": True}, "games: Input should be a valid integer"),
    ({"concurrency": 0}, "concurrency: Input should be greater than or equal to 1"),
    ({"match_timeout_s": "soon"}, "match_timeout_s: Input should be a valid number"),
    ({"seed": True}, "seed: Input should be a valid string"),
    ({"colour": "red"}, "colour: unknown key (keys: bank_ms, challenger,"),
    ({"entrants": "random"}, "entrants: expected a list"),
    ({"entrants": [3, "random"]}, "entrants[0]: expected a bot spec or a table"),
    ({"entrants": [{"name": "x", "bot": "random", "cmd": "y"}, "random"]}, "entrants[0].cmd: unknown key"),
    ({"entrants": [{"name": "x"}, "random"]}, "entrants[0]: entrant 'x': give exactly one of 'bot' or 'command'"),
    ({"entrants": [{"name": "x", "command": "x {token_file} {port}"}, "random"]}, "unknown placeholder 'port'"),
    ({"options": 3}, "options: expected a table"),
    ({"options": {"players": 7}}, "options: all_fives: players must be 2 or 3"),
    ({"sprt": {"a": "random", "b": "first-legal", "elo0": 0, "score0": 0.5}}, "sprt: give elo0 or score0, not both"),
    ({"sprt": {"a": "random", "b": "first-legal", "elo1": "high"}}, "sprt: elo1: expected a number"),
    ({"sprt": {"a": "random", "b": "nobody"}}, "sprt: 'random' and 'nobody' must both be entrants"),
    ({"challenger": "random"}, "challenger: only for the gauntlet format"),
])
def test_a_bad_field_is_a_one_line_error_that_names_it(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_mapping({**BASE, **fields})
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_every_bad_field_is_reported_at_once_on_one_line() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_mapping({**BASE, "games": 0, "format": "knockout"})
    assert str(caught.value) == ("format: Input should be 'round_robin', 'swiss' or 'gauntlet'; "
                                 "games: Input should be greater than or equal to 1")


def test_shorthands_name_entrants_after_their_bot_and_seeds_may_be_integers() -> None:
    config = config_from_mapping({**BASE, "entrants": ["random", {"bot": "heuristic"}], "seed": 7})
    assert [(e.name, e.bot) for e in config.entrants] == [("random", "random"), ("heuristic", "heuristic")]
    assert config.seed == "7"


def test_elo_hypotheses_become_scores_and_are_not_stored() -> None:
    config = config_from_mapping({**BASE, "sprt": {"a": "random", "b": "first-legal", "elo1": 20}})
    assert config.sprt is not None and config.sprt.score1 == elo_to_score(20)
    assert set(config.to_json()["sprt"]) == {"a", "b", "score0", "score1", "alpha", "beta"}


def test_a_stored_config_reads_back_to_the_same_config() -> None:
    config = config_from_mapping({**BASE, "sprt": {"a": "random", "b": "first-legal"}, "extra": {"k": [1]}})
    assert config_from_mapping(json.loads(json.dumps(config.to_json()))) == config


def test_fingerprints_are_those_of_the_hand_written_validator_so_stored_tournaments_resume() -> None:
    # Hashes computed by the config before pydantic (commit c164c46): --resume compares them with stored ones.
    # (The command entrant's hash is of its {token_file} form: a {token} command is refused now.)
    commands = config_from_mapping({
        "name": "example", "game": "all_fives", "options": {"players": 2, "target": 61}, "games": 4,
        "seed": "example-1", "concurrency": 2, "entrants": [
            {"name": "random", "bot": "random"},
            {"name": "mine", "command": "{python} my_bot.py --server {address} --token-file {token_file}"}]})
    assert commands.fingerprint() == "ea927cd1ed5c06637994623042b9b107b8491d7fa93209c017bbbfd6f36b8f9b"
    gauntlet = config_from_mapping({
        "name": "t", "game": "twenty_five", "options": {"target": 25}, "games": 3, "seed": 7,
        "entrants": ["random", "first-legal", {"name": "h", "bot": "heuristic"}], "match_timeout_s": 60,
        "sprt": {"a": "random", "b": "h", "elo1": 20}, "format": "gauntlet", "extra": {"k": [1, 2]}})
    assert gauntlet.fingerprint() == "8fcfa2b265ed1c110da1577b8cde6a1cc062922ae7d3600389cb1a07ecc0a9c8"


def test_the_published_json_schema_is_the_models() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "docs/tournament.schema.json is stale: regenerate it with make schemas")


def test_the_schema_accepts_the_example_and_rejects_what_the_loader_rejects() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    example = tomllib.loads((ROOT / "examples" / "tournament.toml").read_text(encoding="utf-8"))
    assert list(validator.iter_errors(example)) == []
    assert validator.is_valid({**example, "entrants": ["random", {"bot": "heuristic"}], "seed": 7})
    for bad in ({"games": "two"}, {"colour": "red"}, {"game": "whist"}, {"format": "knockout"},
                {"entrants": [{"name": "x"}]}, {"entrants": [{"command": "x {token_file}"}]},
                {"entrants": [{"name": "x", "bot": "random", "command": "x {token_file}"}]}):
        assert not validator.is_valid({**example, **bad}), bad


def test_the_sdk_arena_plays_without_the_config_library() -> None:
    # The SDK installs with grpcio and protobuf only; pydantic comes with the cli extra.
    program = "import sys, tricktable.tournament.arena; print('pydantic' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
