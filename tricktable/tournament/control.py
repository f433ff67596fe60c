"""The control line protocol of a long-lived entrant process: seats handed in, answers back, one JSON line each.

A long-lived entrant process plays many seats one after another (see
:mod:`tricktable.tournament.long_lived`). It inherits one end of a Unix
socket pair, the *control descriptor*, named by ``$TRICKTABLE_CONTROL_FD``
(and ``{control_fd}`` in a command template), and:

- reads one line per seat to play, a JSON object ``{"play": ID, "token":
  TOKEN, "seat": N, "seed": SEED, "address": ADDRESS}``: the seat's token
  (its whole credential, so it travels only here), the seat's number, a
  seed for the bot's own randomness, and the server address to play it at;
- plays the seat until its game ends, then writes ``{"done": ID, "status":
  S}`` with ``S`` ``finished`` (the game ended), ``aborted`` (the server
  aborted it) or ``error`` (it could not play it; ``"error": "why"`` added);
- while it plays, may write ``{"fault": ID, "kind": K, "message": M}``
  for each decision its bot got wrong (``K`` a fault kind:
  :data:`tricktable.tournament.faults.KINDS`, or an exec or webhook bot's own):
  the tournament counts it toward the forfeit rule at once;
- reads the next line; end of file means the tournament is over: exit.

Why lines of JSON: any language reads and writes them, and a field added
later is ignored by a reader that does not know it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

#: What a long-lived process answers for a seat it was handed.
Status = Literal["finished", "aborted", "error"]
STATUSES: tuple[Status, ...] = ("finished", "aborted", "error")
#: Longest line either side accepts (a seat line is a few hundred bytes).
MAX_LINE_BYTES = 65_536


class ControlError(ValueError):
    """A control line that is not what the protocol says (the process is treated as crashed)."""


def _decode(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ControlError(f"not a JSON line: {line[:80]!r}: {exc}") from None
    if not isinstance(data, dict):
        raise ControlError(f"not a JSON object: {line[:80]!r}")
    return data


@dataclass(frozen=True, slots=True, kw_only=True)
class Hand:
    """One seat handed to a long-lived process."""

    play: str
    token: str
    seat: int
    seed: str
    address: str

    def line(self) -> bytes:
        """The line written to the control descriptor."""
        return json.dumps({"play": self.play, "token": self.token, "seat": self.seat, "seed": self.seed,
                           "address": self.address}).encode() + b"\n"

    @classmethod
    def parse(cls, line: bytes) -> Hand:
        """The seat of a line read from the control descriptor.

        Raises:
            ControlError: the line is not a seat line.
        """
        data = _decode(line)
        try:
            return cls(play=str(data["play"]), token=str(data["token"]), seat=int(data["seat"]),
                       seed=str(data.get("seed", "")), address=str(data["address"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ControlError(f"a seat line needs play, token, seat and address: {exc}") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class Done:
    """A long-lived process's answer: it is through with the seat of ``play``."""

    play: str
    status: Status
    error: str = ""

    def line(self) -> bytes:
        """The line written back on the control descriptor."""
        data: dict[str, Any] = {"done": self.play, "status": self.status}
        if self.error:
            data["error"] = self.error
        return json.dumps(data).encode() + b"\n"

    @classmethod
    def parse(cls, line: bytes) -> Done:
        """The answer of a line read back.

        Raises:
            ControlError: the line is not an answer.
        """
        data = _decode(line)
        status = data.get("status")
        if "done" not in data or status not in STATUSES:
            raise ControlError(f"an answer needs done and a status of {', '.join(STATUSES)}: {line[:80]!r}")
        return cls(play=str(data["done"]), status=status, error=str(data.get("error", "")))

    def describe(self) -> str:
        """How the fault log says it (``said error: why``)."""
        return f"said {self.status}" + (f": {self.error}" if self.error else "")


#: Longest fault message kept (the rest of a bot's own words is cut).
MAX_FAULT_MESSAGE = 500


@dataclass(frozen=True, slots=True, kw_only=True)
class Fault:
    """A long-lived process's report, while it plays the seat of ``play``: its bot made a fault of ``kind``."""

    play: str
    kind: str
    message: str = ""

    def line(self) -> bytes:
        """The line written back on the control descriptor."""
        return json.dumps({"fault": self.play, "kind": self.kind,
                           "message": self.message[:MAX_FAULT_MESSAGE]}).encode() + b"\n"


def parse_reply(line: bytes) -> Done | Fault:
    """What a long-lived process wrote back: an answer for a seat, or a fault of the seat it plays.

    Raises:
        ControlError: the line is neither.
    """
    data = _decode(line)
    if "fault" in data and "done" not in data:
        kind = data.get("kind")
        if not isinstance(kind, str) or not kind:
            raise ControlError(f"a fault line needs a kind: {line[:80]!r}")
        return Fault(play=str(data["fault"]), kind=kind[:64], message=str(data.get("message", ""))[:MAX_FAULT_MESSAGE])
    return Done.parse(line)
