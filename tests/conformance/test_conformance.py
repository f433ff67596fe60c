"""``tricktable conformance``: correct clients pass every situation; each fault fails its situation.

The clients under test run as separate processes through the harness's relay
against an in-process server, exactly as a user's client would.
"""

from __future__ import annotations

import sys

import pytest

from tests.conformance.helpers import SPECTATOR, passed_or_declared, run_check, run_checks_in_every_game, verdict_lines
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server.conformance import expand, harness_answer, situations
from tricktable.server.conformance_relay import hidden_parts

SITUATIONS = [s.name for s in situations()]
SCRIPTED = [sys.executable, "-m", "tests.conformance.scripted_client"]
#: The SDK bot that annotates its answers.
NOTING = "tests/conformance/noting_bot.py:Noting"


def test_placeholders_are_replaced_in_every_argument():
    assert expand(["bot", "--server={address}", "{token}", "x"], "127.0.0.1:5", "tok") == \
        ["bot", "--server=127.0.0.1:5", "tok", "x"]
    assert expand(["watch", "{table}", "--server", "{address}"], "127.0.0.1:5", "", "t-1") == \
        ["watch", "t-1", "--server", "127.0.0.1:5"]


def test_python_sdk_bot_passes_every_situation_in_all_four_games():
    """The SDK's ``tricktable bot`` (an annotating bot: the reference bots do not annotate) at every seat, on
    PlayMany with several tokens, and ``tricktable watch`` as the spectator: every situation passes, none skipped."""
    # As `conformance --bot` runs a bot, and as an outside client starts: its first connection must succeed.
    runs = run_checks_in_every_game([sys.executable, "-m", "tricktable.cli.main", "bot", NOTING, "--server",
                                     "{address}", "--token", "{token}"], *SPECTATOR)
    for game, done in runs.items():
        lines = verdict_lines(done.stdout)
        assert done.returncode == 0, f"{game}:\n{done.stdout}{done.stderr}"
        assert sorted(lines) == sorted(SITUATIONS)
        assert all(line.startswith("PASS") for line in lines.values()), f"{game}:\n{done.stdout}"
        assert "joined with coalesce_events" in lines["coalesced"], done.stdout  # the SDK runner coalesces
        assert "on one PlayMany call" in lines["play-many"] and "no hidden card" in lines["spectate"]
    layouts = {"twenty_five": "seats 0-3 of 4", "forty_five": "seats 0-1 of 2, seats 0-2 of 3, seats 0-3 of 4",
               "all_fives": "seats 0-1 of 2, seats 0-2 of 3", "cinq_cents": "seats 0-3 of 4"}
    for game, seats in layouts.items():
        assert f"({seats})" in verdict_lines(runs[game].stdout)["every-seat"], runs[game].stdout


def test_scripted_client_without_faults_passes_every_situation_it_supports():
    """A client without PlayMany, annotations or a spectator declares them and passes the rest."""
    done = run_check([*SCRIPTED, "good"], "--skip", "play-many", "--skip", "annotations")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = verdict_lines(done.stdout)
    assert passed_or_declared(lines, ("play-many", "annotations", "spectate")) == [], done.stdout
    assert [name for name, line in lines.items() if line.startswith("SKIP")] == [
        "annotations", "play-many", "spectate"]
    assert "did not ask for coalesced events" in lines["coalesced"]  # an option: plain delivery passes too
    assert "7 of 10 situations passed, 3 skipped" in done.stdout


@pytest.mark.parametrize(("mode", "situation", "args", "expected"), [
    ("ignore-rejection", "rejection", ["--decision-ms", "400", "--bank-ms", "0"], "did not answer decision"),
    ("fresh-rejoin", "reconnect", [], "rejoined without last_seen_sequence"),
    ("no-reconnect", "reconnect", [], "exited with status 1"),
    ("slow-first", "clock", ["--clock-ms", "300"], "not answered within 300 ms"),
    ("quit-early", "normal-game", [], "game_ended never reached the client"),
    ("quit-after-default", "default-action", ["--clock-ms", "1500"], "answered no decision after the default"),
    ("quit-early", "every-seat", [], "seat 1 of 2: game_ended never reached the client"),
    ("good", "play-many", [], "not over one PlayMany call"),
    ("good", "annotations", [], "the client sent no annotation"),
])
def test_a_faulty_client_fails_its_situation(mode, situation, args, expected):
    done = run_check([*SCRIPTED, mode], "--only", situation, *args)
    line = verdict_lines(done.stdout).get(situation, "")
    assert done.returncode == 1, done.stdout + done.stderr
    assert line.startswith(f"FAIL {situation}:"), done.stdout
    assert expected in line


def test_a_spectator_that_never_spectates_fails_the_spectate_situation():
    done = run_check([*SCRIPTED, "good"], "--only", "spectate", "--spectator", f"{sys.executable} -c pass")
    line = verdict_lines(done.stdout).get("spectate", "")
    assert done.returncode == 1, done.stdout + done.stderr
    assert line.startswith("FAIL spectate:") and "never opened Spectate" in line, done.stdout


def test_a_spectator_shown_a_hand_or_a_buried_card_is_told_so():
    """What the spectate situation looks for in every message a spectator gets (the server sends none of it)."""
    started = pb.SpectateResponse()
    started.started.view.hand.extend(["5H", "JD"])
    started.started.view.history.add(seat=2).action.rob.card = "2C"
    dealt = pb.SpectateResponse()
    dealt.event.sequence = 4
    dealt.event.deal_started.hand.append("AH")
    robbed = pb.SpectateResponse()
    robbed.event.robbed.buried = "3S"
    assert hidden_parts(started) == ["the spectator's view has hand ['5H', 'JD']",
                                     "the spectator's view shows seat 2's buried card 2C"]
    assert hidden_parts(dealt) == ["event 4 (deal_started) shows ['AH']"]
    assert hidden_parts(robbed) == ["event 0 (robbed) shows 3S"]
    public = pb.SpectateResponse()
    public.event.card_played.card = "5H"
    assert hidden_parts(public) == []


def test_unknown_situation_is_a_usage_error():
    done = run_check([*SCRIPTED, "good"], "--only", "no-such-situation")
    assert done.returncode == 2
    assert "unknown situation" in done.stderr
    skipped = run_check([*SCRIPTED, "good"], "--skip", "no-such-situation")
    assert skipped.returncode == 2 and "unknown situation" in skipped.stderr


def _auction(bids: list[bool]) -> pb.DecisionRequest:
    """A Cinq Cents auction decision after ``bids`` (True: that seat bid, False: it passed)."""
    decision = pb.DecisionRequest(decision_id="7")
    decision.legal_actions.add(id="bid-6-S").action.bid.tricks = 6
    getattr(decision.legal_actions.add(id="pass").action, "pass").SetInParent()  # `pass` is a Python keyword
    decision.view.players = 4
    for seat, bid in enumerate(bids):
        entry = decision.view.bids.add(seat=seat)
        if bid:
            entry.bid.tricks = 6
    return decision


def test_harness_seats_pass_in_a_cinq_cents_auction_so_the_client_declares_when_it_bids():
    assert harness_answer(_auction([])).action_id == "pass"
    assert harness_answer(_auction([True, False])).action_id == "pass"
    assert harness_answer(_auction([False, False, True])).action_id == "pass"


def test_the_last_harness_seat_bids_when_everyone_passed_so_no_deal_is_void():
    assert harness_answer(_auction([False, False, False])).action_id == "bid-6-S"


def test_harness_seats_discard_the_first_cards_of_a_discard_choice():
    decision = pb.DecisionRequest(decision_id="9")
    decision.discard_choice.cards.extend(["4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC"])
    decision.discard_choice.count = 6
    answer = harness_answer(decision)
    assert answer.decision_id == "9" and list(answer.action.discard.cards) == ["4C", "5C", "6C", "7C", "8C", "9C"]
