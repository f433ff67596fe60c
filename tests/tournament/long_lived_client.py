"""A long-lived command entrant speaking the control protocol by hand, as a program in another language would.

``python -m tests.tournament.long_lived_client [--die-once DIR]``: reads seat lines on
``$TRICKTABLE_CONTROL_FD`` (docs/tournament.md, Long-lived entrants), plays each seat first-legal at the
line's address, and answers ``done``. The note of its first action at each table says which process played
it and what it was handed before::

    long-lived process=<random id> seat_no=<n> earlier_tokens=<n>

``--die-once DIR``: the first process of the run to reach its second seat exits at its first decision there
(``DIR`` holds the marker saying it happened; trusted runs only, a sandbox cannot write it).
``--answer-only``: answers every seat ``finished`` without playing it; ``--hold``: never answers (both for
tests of the tournament's side of the protocol without a server).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sys
from pathlib import Path

from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.bot import AnnotatedAction
from tricktable.client_sdk.runner import run_bot
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView

PROCESS = secrets.token_hex(8)


class NotingBot(FirstLegalBot):
    """First-legal, with a note on its first action (and, if told, a death there)."""

    def __init__(self, note: str, die: bool) -> None:
        self.note: str | None = note
        self.die = die

    def choose_action(self, view: SeatView) -> Action | AnnotatedAction:  # type: ignore[override]
        if self.die:
            os._exit(1)
        action = super().choose_action(view)
        if self.note is None:
            return action
        note, self.note = self.note, None
        return AnnotatedAction(action, note=note)


def main(argv: list[str]) -> int:
    marker = Path(argv[argv.index("--die-once") + 1]) / "died" if "--die-once" in argv else None
    control = socket.socket(fileno=int(os.environ["TRICKTABLE_CONTROL_FD"]))
    lines = control.makefile("rb")
    earlier: set[str] = set()
    for number, line in enumerate(lines, start=1):
        seat = json.loads(line)
        if "--hold" in argv:
            continue
        if "--answer-only" in argv:
            control.sendall(json.dumps({"done": seat["play"], "status": "finished"}).encode() + b"\n")
            continue
        die = False
        if marker is not None and number == 2:
            try:
                marker.open("x").close()
                die = True
            except FileExistsError:
                pass
        note = f"long-lived process={PROCESS} seat_no={number} earlier_tokens={len(earlier - {seat['token']})}"
        earlier.add(seat["token"])
        result = run_bot(NotingBot(note, die), seat["address"], token=seat["token"], name="long-lived")
        status = "finished" if result.status == "finished" else "aborted"
        control.sendall(json.dumps({"done": seat["play"], "status": status}).encode() + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
