"""The arena: one call plays bots in-process and returns records and results."""

from __future__ import annotations

import pytest

from tricktable.bots import BotSpecError
from tricktable.rules.verify import verify_record
from tricktable.tournament.arena import play


def test_duplicate_games_rotate_the_bots_through_the_sides_on_the_same_decks() -> None:
    result = play("all_fives", ["heuristic", "random"], deck_sets=3, duplicate=True, seed="arena")
    assert len(result.outcomes) == 6 and len(result.records) == 6
    for first, second in zip(result.records[::2], result.records[1::2], strict=True):
        assert first["deals"][0]["deck"] == second["deals"][0]["deck"]  # the same cards
        assert [s["name"] for s in first["seats"]] == list(reversed([s["name"] for s in second["seats"]]))
    assert all(verify_record(r) is None for r in result.records)
    totals = result.totals()
    assert totals["heuristic"].games == totals["random"].games == 6
    assert totals["heuristic"].wins + totals["random"].wins == pytest.approx(6)
    assert "heuristic:" in result.summary()


@pytest.mark.parametrize(("games", "duplicate", "played"), [(4, True, 4), (3, True, 4), (1, True, 2), (3, False, 3)])
def test_games_counts_games_as_a_tournament_file_does(games: int, duplicate: bool, played: int) -> None:
    """``games=4`` plays 4 games, rounded up to whole duplicate deck sets, as ``games = 4`` in a tournament file."""
    assert len(play("all_fives", ["random", "first-legal"], games=games, duplicate=duplicate).outcomes) == played


def test_the_same_call_plays_the_same_games() -> None:
    one = play("twenty_five", ["random", "first-legal"], games=2, seed="again")
    two = play("twenty_five", ["random", "first-legal"], games=2, seed="again")
    assert one.records == two.records


def test_one_bot_per_seat_and_a_bot_named_twice() -> None:
    result = play("twenty_five", ["heuristic", "random", "first-legal", "random"], games=1)
    assert result.names == ("heuristic", "random", "first-legal", "random-2")
    assert [s["name"] for s in result.records[0]["seats"]] == list(result.names)


def test_an_authors_file_bot_plays_and_its_faults_count(tmp_path) -> None:
    path = tmp_path / "wrong.py"
    path.write_text("class Wrong:\n    def choose_action(self, view):\n        return 'not an action'\n")
    result = play("all_fives", [f"{path}:Wrong", "random"], games=1, forfeit_after=2)
    outcome = result.outcomes[0]
    assert outcome.status == "forfeit" and outcome.forfeit_by == f"{path}:Wrong"
    assert result.totals()[f"{path}:Wrong"].forfeits == 1
    assert "returned str 'not an action', not an action" in outcome.reason


def test_bad_bots_and_counts_are_refused_before_any_game() -> None:
    with pytest.raises(BotSpecError, match="unknown bot 'randm'"):
        play("all_fives", ["random", "randm"])
    with pytest.raises(ValueError, match="a bot per side or per seat"):
        play("twenty_five", ["random", "random", "random"])
