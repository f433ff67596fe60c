"""The engine end to end in-process: storage, resume, forfeits, SPRT stop, Swiss rounds, exports."""

from __future__ import annotations

import asyncio
import csv
import json

import pytest

from tests.tournament.helpers import RiggedRunner, config
from tricktable.cli.verify import check_file
from tricktable.rules.verify import verify_record
from tricktable.tournament.engine import ThreadDispatcher, Tournament, local_dispatcher, stored_games
from tricktable.tournament.ratings import leaderboard
from tricktable.tournament.report import export, summarize
from tricktable.tournament.runner import LocalRunner
from tricktable.tournament.store_errors import StoreError


@pytest.fixture
def store(stores):
    """The store of each test, on SQLite and on PostgreSQL (``stores``)."""
    s = stores.open()
    yield s
    s.close()


def run(cfg, store, dispatcher, *, resume=False, concurrency=1):
    return asyncio.run(Tournament(cfg, store, dispatcher, concurrency=concurrency).run(resume=resume))


def rigged(cfg, strengths, edge=0.8):
    return ThreadDispatcher(RiggedRunner(strengths, edge), {e.name: e for e in cfg.entrants})


def test_local_round_robin_stores_every_match_with_a_valid_record(store):
    cfg = config(entrants=["random", "first-legal", {"name": "r2", "bot": "random"}], games=2)
    stats = run(cfg, store, local_dispatcher(cfg, 1))
    assert stats.played == stats.scheduled == 6
    games = stored_games(store, "t")
    assert len(games) == 6 and store.status("t") == "finished"
    for spec, outcome in games:
        assert outcome.status == "finished"
        record = store.record("t", spec.match_id)
        assert record is not None and verify_record(record) is None
        assert [s["name"] for s in record["seats"]] == list(spec.seats)
        assert record["seed"] == spec.seed


def test_same_seed_same_results_and_duplicate_decks(store, stores):
    cfg = config(games=4)
    run(cfg, store, local_dispatcher(cfg, 1))
    other = stores.open("other")
    run(cfg, other, local_dispatcher(cfg, 1))
    a = {s.match_id: (o.winners, o.scores) for s, o in stored_games(store, "t")}
    b = {s.match_id: (o.winners, o.scores) for s, o in stored_games(other, "t")}
    assert a == b
    other.close()
    r0 = store.record("t", "r0-d0-g0-a0")
    r1 = store.record("t", "r0-d0-g0-a1")
    assert r0["deals"][0]["deck"] == r1["deals"][0]["deck"]  # the same cards, the seats swapped
    assert r0["options"]["first_dealer"] == r1["options"]["first_dealer"]
    assert [s["name"] for s in r0["seats"]] == list(reversed([s["name"] for s in r1["seats"]]))


class Interrupt(BaseException):
    pass


class StopAfter:
    """A dispatcher that plays ``n`` matches and then interrupts the tournament (as Ctrl-C would)."""

    def __init__(self, inner, n):
        self.inner, self.n = inner, n

    async def play(self, spec):
        if self.n <= 0:
            raise Interrupt()
        self.n -= 1
        return await self.inner.play(spec)

    async def close(self):
        await self.inner.close()


def test_interrupted_tournament_resumes_without_losing_or_repeating_a_match(store, stores):
    cfg = config(entrants=["a", "b", "c", "d"], games=10)
    strengths = {"a": 4, "b": 3, "c": 2, "d": 1}
    with pytest.raises(Interrupt):
        run(cfg, store, StopAfter(rigged(cfg, strengths), 17))
    assert store.count("t") == 17 and store.status("t") == "interrupted"
    with pytest.raises(StoreError, match="already exists"):
        run(cfg, store, rigged(cfg, strengths))
    again = RiggedRunner(strengths)
    stats = run(cfg, store, ThreadDispatcher(again, {}), resume=True)
    assert stats.already_done == 17 and stats.played == 60 - 17
    assert len(again.calls) == len(set(again.calls)) == 43
    whole = stores.open("whole")
    run(cfg, whole, rigged(cfg, strengths))
    names = ["a", "b", "c", "d"]
    resumed_table = [s.to_json() for s in leaderboard(names, stored_games(store, "t"))]
    assert resumed_table == [s.to_json() for s in leaderboard(names, stored_games(whole, "t"))]
    whole.close()


def test_resume_refuses_a_changed_config(store):
    cfg = config(games=2)
    run(cfg, store, rigged(cfg, {"random": 1, "first-legal": 1}))
    with pytest.raises(StoreError, match="different config"):
        run(config(games=4), store, rigged(cfg, {"random": 1, "first-legal": 1}), resume=True)
    with pytest.raises(StoreError, match="no tournament"):
        run(config(name="other"), store, rigged(cfg, {"random": 1, "first-legal": 1}), resume=True)


def test_crashing_bot_forfeits_with_the_reason_and_the_tournament_goes_on(store):
    cfg = config(entrants=["random", {"name": "crash", "bot": "tests.tournament.helpers:CrashingBot"},
                           {"name": "illegal", "bot": "tests.tournament.helpers:IllegalBot"}], games=2,
                 forfeit_after=2)
    stats = run(cfg, store, local_dispatcher(cfg, 1))
    assert stats.played == 6
    games = stored_games(store, "t")
    for spec, outcome in games:
        assert outcome.status == "forfeit" and outcome.forfeit_by in spec.seats
        if outcome.forfeit_by == "crash":
            assert "crashed: RuntimeError: boom" in outcome.reason and outcome.faults["crash"] == 2
            assert outcome.fault_kinds["crash"] == {"crashed": 2}
        else:
            assert outcome.forfeit_by == "illegal" and "illegal action" in outcome.reason
            assert outcome.fault_kinds["illegal"] == {"illegal_action": 2}
        record = store.record("t", spec.match_id)
        assert verify_record(record) is None
        if outcome.status == "forfeit":
            assert record["result"]["status"] == "aborted" and record["result"]["reason"] == outcome.reason
    table = leaderboard(["random", "crash", "illegal"], games)
    assert table[0].name == "random" and table[0].forfeits == 0 and table[0].win_share == 1.0
    assert sum(s.forfeits for s in table[1:]) == 6


def test_unstartable_bot_forfeits(store):
    cfg = config(entrants=["random", {"name": "ghost", "bot": "no_such_module:Bot"}], games=2)
    run(cfg, store, local_dispatcher(cfg, 1))
    for _, outcome in stored_games(store, "t"):
        assert outcome.forfeit_by == "ghost" and "could not start" in outcome.reason


def test_sprt_stops_the_tournament_when_decided(store):
    cfg = config(entrants=["strong", "weak"], games=400, sprt={"a": "strong", "b": "weak", "score1": 0.6})
    stats = run(cfg, store, rigged(cfg, {"strong": 2, "weak": 1}, edge=0.9), concurrency=2)
    assert stats.stopped_by_sprt and stats.sprt is not None and stats.sprt.decision == "H1"
    assert stats.played < stats.scheduled
    assert store.status("t") == "stopped by sprt"


def test_swiss_rounds_pair_without_repeats_and_resume_the_same(store, stores):
    names = ["a", "b", "c", "d", "e", "f"]
    strengths = {n: i for i, n in enumerate(names)}
    cfg = config(entrants=names, format="swiss", rounds=3, games=2)
    with pytest.raises(Interrupt):
        run(cfg, store, StopAfter(rigged(cfg, strengths), 9))
    run(cfg, store, rigged(cfg, strengths), resume=True)
    games = stored_games(store, "t")
    assert len(games) == 3 * 3 * 2
    meetings: dict[frozenset[str], set[int]] = {}
    for spec, _ in games:
        meetings.setdefault(frozenset(spec.seats), set()).add(spec.round)
    assert all(len(rounds) == 1 for rounds in meetings.values())  # no pair met in two rounds
    whole = stores.open("whole")
    run(cfg, whole, rigged(cfg, strengths))
    assert [s.match_id + "".join(s.seats) for s, _ in stored_games(whole, "t")] == [
        s.match_id + "".join(s.seats) for s, _ in games]
    whole.close()


def test_process_pool_gives_the_same_results_as_one_thread(store, stores):
    cfg = config(games=4)
    run(cfg, store, local_dispatcher(cfg, 2), concurrency=2)
    one = stores.open("one")
    run(cfg, one, ThreadDispatcher(LocalRunner(), {e.name: e for e in cfg.entrants}))
    assert [(s.match_id, o.scores) for s, o in stored_games(store, "t")] == [
        (s.match_id, o.scores) for s, o in stored_games(one, "t")]
    one.close()


def test_exports_parse(store, tmp_path):
    cfg = config(entrants=["random", "first-legal", {"name": "r2", "bot": "random"}], games=2)
    run(cfg, store, local_dispatcher(cfg, 1))
    out = tmp_path / "out"
    written = export(summarize(cfg, store), store, out)
    assert {p.name for p in written} == {"summary.json", "leaderboard.csv", "crosstable.csv", "pairs.csv",
                                         "matches.csv", "faults.csv", "records.jsonl", "stderr.jsonl"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 6 and len(summary["leaderboard"]) == 3 and len(summary["pairs"]) == 3
    with (out / "leaderboard.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["name"] for r in rows] == [e["name"] for e in summary["leaderboard"]]
    with (out / "crosstable.csv").open() as fh:
        cross = list(csv.reader(fh))
    assert len(cross) == 4 and all(len(r) == 4 for r in cross)
    with (out / "matches.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 6
    assert all(problem is None for _, problem in check_file(out / "records.jsonl"))
    assert len(check_file(out / "records.jsonl")) == 6


def test_a_game_past_the_deal_limit_is_adjudicated_to_the_side_ahead(store):
    cfg = config(game="cinq_cents", options={}, games=2, max_deals=3)
    stats = run(cfg, store, local_dispatcher(cfg, 1))
    assert stats.played == 2
    for spec, outcome in stored_games(store, "t"):
        record = store.record("t", spec.match_id)
        assert verify_record(record) is None
        if outcome.status == "adjudicated":
            assert "no end after 3 deals" in outcome.reason and record["result"]["status"] == "aborted"
            assert outcome.scores[outcome.winners[0]] == max(outcome.scores)
        else:
            assert outcome.status == "finished"
    assert any(o.status == "adjudicated" for _, o in stored_games(store, "t"))


def test_a_bot_over_its_decision_time_has_the_default_played_and_forfeits(store):
    cfg = config(entrants=["random", {"name": "slow", "bot": "tests.tournament.helpers:SlowBot"}], games=2,
                 decision_ms=1, forfeit_after=2)
    run(cfg, store, local_dispatcher(cfg, 1))
    for _, outcome in stored_games(store, "t"):
        assert outcome.forfeit_by == "slow" and "timed out (over 1 ms)" in outcome.reason


def test_sprt_between_entrants_that_never_meet_uses_common_opponents(store):
    cfg = config(entrants=["hero", "strong", "weak"], format="gauntlet", games=400,
                 sprt={"a": "strong", "b": "weak", "score1": 0.6})
    stats = run(cfg, store, rigged(cfg, {"hero": 2, "strong": 3, "weak": 1}, edge=0.9))
    assert stats.stopped_by_sprt and stats.sprt is not None and stats.sprt.decision == "H1"
    assert stats.played < stats.scheduled
    summary = summarize(cfg, store)
    assert summary.sprt is not None and summary.sprt.decision == "H1"


def test_swiss_with_an_odd_field_gives_each_bye_once(store):
    names = ["a", "b", "c", "d", "e"]
    cfg = config(entrants=names, format="swiss", rounds=3, games=2)
    stats = run(cfg, store, rigged(cfg, {n: i for i, n in enumerate(names)}))
    assert stats.played == 3 * 2 * 2
    byes = [name for round_byes in stats.byes.values() for name in round_byes]
    assert len(byes) == 3 and len(set(byes)) == 3
    for r, (bye,) in stats.byes.items():
        assert all(bye not in spec.seats for spec, _ in stored_games(store, "t") if spec.round == r)


def test_the_in_process_runner_plays_the_servers_default_action_for_a_faulty_bot():
    """A crashing seat gets rules.defaults.default_action, as the server's clock gives it, not the first legal one."""
    from tricktable.rules.defaults import default_action
    from tricktable.rules.match import play_out
    from tricktable.rules.registry import new_match
    from tricktable.tournament.runner import LocalRunner
    from tricktable.tournament.schedule import fixed_groups, round_matches

    cfg = config(game="cinq_cents", options={},
                 entrants=["first-legal", {"name": "crasher", "bot": "tests.tournament.helpers:CrashingBot"}])
    spec = round_matches(cfg, 0, fixed_groups(cfg))[0]
    outcome = LocalRunner(forfeit_after=10**9).run(spec, {e.name: e for e in cfg.entrants})
    crasher = {s for s, name in enumerate(spec.seats) if name == "crasher"}
    expected = play_out(new_match(spec.game, spec.options, seed=spec.seed),
                        lambda m, seat: default_action(m.view(seat)) if seat in crasher else m.legal_actions()[0])
    assert expected.result is not None and outcome.status == "finished"
    assert outcome.scores == tuple(expected.result.scores)
