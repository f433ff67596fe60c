"""docs/adding-a-game.md stays true: the toy game, added by the guide's steps, plays everywhere a game is used.

The toy game (``tests/server/toy_game.py``) is an engine and a definition,
registered by the one registry line of step 3 (here added by the test, as a
test game must not be in the product's registry). Nothing else is written
for it, so each test below is a place where Tricktable must find what it
needs in the definition: the match, the default action, the SDK's ranking
helpers, the determinizing sampler, the bots, the server's lobby (the
server tests play it too) and the golden playthrough (``toy-3p``). The
protocol step is not taken here, and the wire says so; it is taken on a copy
of the protos by ``tests/docs/test_adding_a_game_wire.py``.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.golden import PLAYTHROUGHS
from tests.server import toy_game
from tricktable.bots.heuristic import HeuristicBot
from tricktable.bots.pimc import PimcBot
from tricktable.bots.search import SearchBot
from tricktable.cli import doc_schemas
from tricktable.cli.selfplay import play_random
from tricktable.client_sdk import cards
from tricktable.protocol import convert
from tricktable.rules import registry
from tricktable.rules.defaults import default_action
from tricktable.rules.determinize import resample, shown_voids
from tricktable.rules.errors import OptionsError
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match
from tricktable.rules.record import parse_record
from tricktable.rules.registry import game_definition, games, new_match
from tricktable.tournament.config import config_from_mapping

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "adding-a-game.md"
#: A fenced Python block of the guide, its first line naming the file it is quoted from.
QUOTED = re.compile(r"```python\n# (\S+)\n(.*?)```", re.S)


@pytest.fixture(autouse=True)
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 3: the toy's registry line."""
    monkeypatch.setitem(registry.GAME_MODULES, "toy", toy_game.REGISTRY_ENTRY)


def _decisions(match: Match, rng: random.Random) -> Iterator[tuple[Match, SeatView]]:
    """Every decision of ``match`` played at random, with the deciding seat's view."""
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        yield match, view
        match = match.apply(rng.choice(view.legal_actions))


def test_the_guide_quotes_the_toy_game_as_it_is() -> None:
    quoted = QUOTED.findall(GUIDE.read_text(encoding="utf-8"))
    assert quoted, "the guide quotes no file"
    for path, block in quoted:
        assert block in (ROOT / path).read_text(encoding="utf-8"), f"the guide's quote of {path} is stale"


def test_the_guide_lists_files_that_exist() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:tricktable|tests|docs)/[\w/.]+\.(?:py|proto|md|json|txt))`", text))
    assert named, "the guide names no file"
    assert sorted(p for p in named if not (ROOT / p).exists()) == []


def test_the_registry_line_is_the_form_of_the_real_games() -> None:
    assert all(re.fullmatch(r"[\w.]+:[A-Z_]+", entry) for entry in registry.GAME_MODULES.values())
    assert game_definition("toy") is toy_game.TOY


def test_a_whole_toy_match_plays_with_the_default_action_legal_at_every_decision() -> None:
    match = new_match("toy", {"players": 3}, seed="guide")
    decisions = 0
    for _, view in _decisions(match, random.Random(1)):
        assert default_action(view) in view.legal_actions
        decisions += 1
    assert decisions >= 9  # at least three deals of three tricks of three players


def test_the_sdk_ranking_helpers_name_the_engines_trick_winners() -> None:
    checked = 0
    for _, view in _decisions(new_match("toy", {"players": 2}, seed="ranks"), random.Random(2)):
        assert not any(cards.is_trump(view, c) for c in view.hand)
        for trick in view.tricks:
            seats = trick.seats(view.players)
            best = max(range(len(trick.cards)), key=lambda i: cards.strength(view, trick.cards[i], trick))
            assert seats[best] == trick.winner
            checked += 1
    assert checked


def test_the_sampler_draws_toy_worlds_that_agree_with_the_view() -> None:
    drawn = 0
    for match, view in _decisions(new_match("toy", {"players": 3}, seed="worlds"), random.Random(3)):
        voids = shown_voids(view)
        assert voids[view.seat] <= frozenset(match.config.deck()) - set(view.hand)
        state = resample(view, random.Random(drawn))
        assert state is not None and state.to_act == view.seat
        assert set(state.legal_actions()) == set(view.legal_actions)
        drawn += 1
    assert drawn


def test_the_heuristic_plays_the_toy_by_the_module_its_definition_names() -> None:
    bot = HeuristicBot()
    for _, view in _decisions(new_match("toy", {}, seed="heuristic"), random.Random(4)):
        assert bot.choose_action(view) == toy_game.choose_action(view)


@pytest.mark.parametrize("bot", [SearchBot(seed=1, simulations=4), PimcBot(seed=1, simulations=4)],
                         ids=["search", "pimc"])
def test_a_game_without_a_fast_path_is_refused_by_the_searching_bots_by_name(bot: SearchBot | PimcBot) -> None:
    match = new_match("toy", {}, seed="search")
    assert match.to_act is not None
    view = match.view(match.to_act)
    assert len(view.legal_actions) > 1
    with pytest.raises(ValueError, match="toy has no fast path"):
        bot.choose_action(view)


def test_the_wire_refuses_the_toy_until_the_proto_has_it() -> None:
    with pytest.raises(OptionsError, match=r"game 'toy' has no Game value .* \(make protos writes them\)"):
        convert.game_to_proto("toy")
    with pytest.raises(OptionsError, match=r"no Game value and options message in tricktable/v1/game\.proto"):
        convert.options_to_proto("toy", {"players": 2})


def test_the_toy_has_a_golden_playthrough() -> None:
    assert [p.name for p in PLAYTHROUGHS if p.game == "toy"] == ["toy-3p"]


def test_the_registry_line_alone_makes_the_toy_known_to_every_reader_of_the_games() -> None:
    assert games()[-1] == "toy"
    record = play_random("toy", {"players": 3}, "known").to_record(seed="known")
    assert parse_record(record).game == "toy"
    config = config_from_mapping({"name": "t", "game": "toy", "entrants": ["random", "heuristic"]})
    assert config.game == "toy"


def test_the_schemas_step_names_the_toy_in_every_published_schema(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    schemas = (*doc_schemas.HAND_WRITTEN, doc_schemas.TOURNAMENT_SCHEMA)
    for name in schemas:
        shutil.copy(ROOT / "docs" / name, docs / name)
    before = {name: (docs / name).read_text(encoding="utf-8") for name in schemas}
    assert doc_schemas.main(["--check", str(docs)]) == 1
    told = capsys.readouterr().err.splitlines()
    assert sorted(told) == sorted(f"{docs / name} lacks the game 'toy': run make schemas" for name in schemas)

    assert doc_schemas.main([str(docs)]) == 0  # the step: make schemas, on the copy
    assert doc_schemas.main(["--check", str(docs)]) == 0
    for name in schemas:
        assert doc_schemas.schema_games((docs / name).read_text(encoding="utf-8")) == list(games())
    for name in doc_schemas.HAND_WRITTEN:  # only the game line of a hand-written schema changes
        changed = set((docs / name).read_text(encoding="utf-8").splitlines()) ^ set(before[name].splitlines())
        assert len(changed) == 2 and all('"game": {"enum": [' in line for line in changed)

    jsonschema = pytest.importorskip("jsonschema")
    record = play_random("toy", {"players": 3}, "schema").to_record(seed="schema")
    schema = json.loads((docs / doc_schemas.RECORD_SCHEMA).read_text(encoding="utf-8"))
    assert [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(record)] == []
    original = json.loads(before[doc_schemas.RECORD_SCHEMA])
    assert list(jsonschema.Draft202012Validator(original).iter_errors(record))  # before the step: refused
