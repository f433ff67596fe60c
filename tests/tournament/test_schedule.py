"""Formats and duplicate rotations produce the right schedules."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from tests.tournament.helpers import config
from tricktable.tournament.config import ConfigError
from tricktable.tournament.schedule import (
    MatchSpec,
    arrangements,
    deck_sets_per_group,
    equal_splits,
    fixed_groups,
    round_matches,
    swiss_groups,
)

FIVE = ["a", "b", "c", "d", "e"]


def test_round_robin_pairs_every_two_entrants_once():
    cfg = config(entrants=FIVE, games=4)
    groups = fixed_groups(cfg)
    assert sorted(frozenset(g) for g in groups) == sorted(frozenset(p) for p in itertools.combinations(FIVE, 2))
    specs = round_matches(cfg, 0, groups)
    # 4 games per pair: 2 deck sets x 2 directions.
    assert Counter(frozenset(s.seats) for s in specs) == {frozenset(p): 4 for p in itertools.combinations(FIVE, 2)}
    assert len({s.match_id for s in specs}) == len(specs)


def test_three_player_round_robin_plays_every_triple():
    cfg = config(entrants=FIVE, options={"players": 3}, games=3)
    groups = fixed_groups(cfg)
    assert len(groups) == 10 and all(len(set(g)) == 3 for g in groups)


def test_gauntlet_plays_the_challenger_against_each_of_the_field():
    cfg = config(entrants=FIVE, format="gauntlet", challenger="c")
    groups = fixed_groups(cfg)
    assert sorted(groups) == [("c", "a"), ("c", "b"), ("c", "d"), ("c", "e")]
    assert fixed_groups(config(entrants=FIVE, format="gauntlet"))[0][0] == "a"


def test_games_round_up_to_whole_duplicate_sets():
    assert deck_sets_per_group(config(games=5)) == 3
    assert deck_sets_per_group(config(games=5, deck_sets=7)) == 7


def test_duplicate_rotation_gives_each_entrant_each_side_on_the_same_decks():
    cfg = config(entrants=["a", "b", "c"], options={"players": 3}, games=3)
    specs = round_matches(cfg, 0, fixed_groups(cfg))
    by_deck: dict[int, list[MatchSpec]] = {}
    for s in specs:
        by_deck.setdefault(s.deck_set, []).append(s)
    for deck_set, games in by_deck.items():
        assert len({s.seed for s in games}) == 1
        held = Counter((s.seats[seat], seat) for s in games for seat in range(3))
        assert held == {(n, seat): 1 for n in "abc" for seat in range(3)}, deck_set


def test_partnership_sides_play_both_directions_of_the_same_decks():
    cfg = config(game="twenty_five", options={}, entrants=["a", "b"], games=2)
    specs = round_matches(cfg, 0, fixed_groups(cfg))
    assert [s.seats for s in specs] == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert specs[0].seed == specs[1].seed
    assert specs[0].side_entrants() == (("a",), ("b",))


def test_rotating_partners_play_every_partnership_in_both_directions():
    cfg = config(game="twenty_five", options={}, entrants=["a", "b", "c", "d"], partners="rotate", games=6)
    specs = round_matches(cfg, 0, fixed_groups(cfg))
    assert len(specs) == 6  # 3 partnerships x 2 directions, one deck set
    teams = Counter(frozenset(map(frozenset, s.side_entrants())) for s in specs)
    assert len(teams) == 3 and set(teams.values()) == {2}
    for s in specs:
        assert sorted(s.seats) == ["a", "b", "c", "d"]
    # each entrant sits on both sides
    assert {(n, s.side_entrants()[0].__contains__(n)) for s in specs for n in "abcd"} == {
        (n, flag) for n in "abcd" for flag in (True, False)}


def test_equal_splits_counts():
    assert len(equal_splits(list("abcd"), 2)) == 3
    assert len(equal_splits(list("abcdef"), 2)) == 15
    assert len(equal_splits(list("abcdef"), 3)) == 10


def test_arrangements_fill_every_seat():
    for seats in arrangements(["x", "y", "z"], [(0, 3), (1, 4), (2, 5)], 6, rotate_partners=False):
        assert "" not in seats and seats[0] == seats[3]


def test_swiss_pairs_by_score_and_never_repeats_a_meeting():
    names = list("abcdefgh")
    scores = {"a": 3, "b": 3, "c": 2, "d": 2, "e": 1, "f": 1, "g": 0, "h": 0}
    groups, byes = swiss_groups(names, scores, set(), {}, 2, seed="s", round_index=1)
    assert byes == [] and [frozenset(g) for g in groups] == [frozenset("ab"), frozenset("cd"), frozenset("ef"),
                                                               frozenset("gh")]
    met = {frozenset(("a", "b")), frozenset(("c", "d"))}
    groups, _ = swiss_groups(names, scores, met, {}, 2, seed="s", round_index=2)
    # the leaders, who have met, each take the best-placed they have not met
    first_two = {frozenset(g) for g in groups[:2]}
    assert first_two in ({frozenset("ac"), frozenset("bd")}, {frozenset("bc"), frozenset("ad")})
    assert all(frozenset(g) not in met for g in groups)


def test_swiss_over_rounds_has_no_repeats_and_rotates_the_bye():
    names = list("abcde")
    met: set[frozenset[str]] = set()
    byes: Counter[str] = Counter()
    scores: Counter[str] = Counter()
    for r in range(4):
        groups, bye = swiss_groups(names, scores, met, byes, 2, seed="s", round_index=r)
        assert len(bye) == 1 and bye[0] not in {n for g in groups for n in g}
        for g in groups:
            assert frozenset(g) not in met
            met.add(frozenset(g))
            scores[min(g)] += 1  # the alphabetically first wins
        byes[bye[0]] += 1
    assert max(byes.values()) == 1


def test_config_errors_name_the_field():
    with pytest.raises(ConfigError, match="format"):
        config(format="knockout")
    with pytest.raises(ConfigError, match="needs 4 entrants"):
        config(game="twenty_five", options={}, partners="rotate", entrants=["a", "b"])
    with pytest.raises(ConfigError, match="first_dealer"):
        config(options={"first_dealer": 0})
    with pytest.raises(ConfigError, match="token_file"):  # a token on a command line: readable by anyone
        config(entrants=[{"name": "x", "command": "x --server {address} --token {token}"}, "random"])


def test_swiss_groups_of_three_avoid_repeated_meetings_when_they_can():
    names = list("abcdefghi")
    groups, byes = swiss_groups(names, {}, set(), {}, 3, seed="s", round_index=0)
    assert byes == [] and sorted(n for g in groups for n in g) == names and all(len(g) == 3 for g in groups)
    from tricktable.tournament.schedule import groups_met

    met = groups_met(groups)
    again, _ = swiss_groups(names, {}, met, {}, 3, seed="s", round_index=1)
    assert not groups_met(again) & met


def test_gauntlet_at_a_three_player_table():
    cfg = config(entrants=["c", "x", "y", "z"], options={"players": 3}, format="gauntlet")
    assert fixed_groups(cfg) == [("c", "x", "y"), ("c", "x", "z"), ("c", "y", "z")]


def test_deck_seeds_are_hmacs_of_a_secret_deck_key_and_bot_seeds_do_not_reveal_them(tmp_path, monkeypatch):
    import hashlib
    import hmac

    from tricktable.tournament.runner import bot_seed
    from tricktable.tournament.store import DECK_KEY_ENV, TournamentStore

    cfg = config(games=2)
    keyed = round_matches(cfg, 0, fixed_groups(cfg), "k1")
    assert keyed[0].seed == hmac.new(b"k1", f"{cfg.seed}/r0/d0".encode(), hashlib.sha256).hexdigest()
    assert cfg.seed not in keyed[0].seed  # the deck-set id alone (public in the config) gives nothing
    assert {s.seed for s in round_matches(cfg, 0, fixed_groups(cfg), "k2")}.isdisjoint({s.seed for s in keyed})
    assert keyed[0].seed not in bot_seed(keyed[0], 0)  # a bot's own seed is handed to it: one-way
    monkeypatch.delenv(DECK_KEY_ENV)
    keys = set()
    for name in ("a", "b"):  # each new tournament draws its own secret key
        store = TournamentStore(tmp_path / f"{name}.sqlite3")
        store.begin(cfg, resume=False)
        keys.add(store.deck_key(cfg.name))
        store.close()
    assert len(keys) == 2 and all(len(k) == 64 for k in keys)
