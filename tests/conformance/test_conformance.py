"""``tricktable conformance``: correct clients pass every situation; each fault fails its situation.

The clients under test run as separate processes through the harness's relay
against an in-process server, exactly as a user's client would.
"""

from __future__ import annotations

import sys

import pytest

from tests.conformance.helpers import run_check, run_checks_in_every_game, verdict_lines
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server.conformance import expand, harness_answer, situations

SITUATIONS = [s.name for s in situations()]
SCRIPTED = [sys.executable, "-m", "tests.conformance.scripted_client"]


def test_placeholders_are_replaced_in_every_argument():
    assert expand(["bot", "--server={address}", "{token}", "x"], "127.0.0.1:5", "tok") == \
        ["bot", "--server=127.0.0.1:5", "tok", "x"]


def test_python_reference_bot_passes_every_situation_in_all_four_games():
    runs = run_checks_in_every_game([sys.executable, "-m", "tricktable.cli.main", "bot", "random", "--server",
                                     "{address}", "--token", "{token}"])
    for game, done in runs.items():
        lines = verdict_lines(done.stdout)
        assert done.returncode == 0, f"{game}:\n{done.stdout}{done.stderr}"
        assert sorted(lines) == sorted(SITUATIONS)
        assert all(line.startswith("PASS") for line in lines.values()), f"{game}:\n{done.stdout}"
        assert "joined with coalesce_events" in lines["coalesced"], done.stdout  # the SDK runner coalesces


def test_scripted_client_without_faults_passes_every_situation():
    done = run_check([*SCRIPTED, "good"])
    assert done.returncode == 0, done.stdout + done.stderr
    lines = verdict_lines(done.stdout)
    assert all(line.startswith("PASS") for line in lines.values())
    assert "did not ask for coalesced events" in lines["coalesced"]  # an option: plain delivery passes too


@pytest.mark.parametrize(("mode", "situation", "args", "expected"), [
    ("ignore-rejection", "rejection", ["--decision-ms", "400", "--bank-ms", "0"], "did not answer decision"),
    ("fresh-rejoin", "reconnect", [], "rejoined without last_seen_sequence"),
    ("no-reconnect", "reconnect", [], "exited with status 1"),
    ("slow-first", "clock", ["--clock-ms", "300"], "not answered within 300 ms"),
    ("quit-early", "normal-game", [], "game_ended never reached the client"),
])
def test_a_faulty_client_fails_its_situation(mode, situation, args, expected):
    done = run_check([*SCRIPTED, mode], "--only", situation, *args)
    line = verdict_lines(done.stdout).get(situation, "")
    assert done.returncode == 1, done.stdout + done.stderr
    assert line.startswith(f"FAIL {situation}:"), done.stdout
    assert expected in line


def test_unknown_situation_is_a_usage_error():
    done = run_check([*SCRIPTED, "good"], "--only", "no-such-situation")
    assert done.returncode == 2
    assert "unknown situation" in done.stderr


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
