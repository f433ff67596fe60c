"""Playing one match: the :class:`MatchRunner` contract, the outcome, and the in-process runner.

A runner takes a :class:`~tricktable.tournament.schedule.MatchSpec` and the entrants,
plays the match and returns a :class:`MatchOutcome`: the record (the JSON of
docs/records.md, replayable with ``tricktable verify``), the result, and the
faults counted against each entrant. Runners never raise for a bot's fault:
a bot that fails repeatedly forfeits the match, with the reason recorded,
and the tournament goes on.

:class:`LocalRunner` plays in this process: the rules engine is the table and
each seat is an in-process bot (:func:`bots.make_bot`: a built-in name or the author's own class).
It is what the fast tests and the 1,000-game benchmark use; the server runner
(:mod:`tricktable.tournament.server_runner`) plays the same specs over gRPC with a
process per bot.

Fault rules (both runners): a bot that raises, returns an illegal action or
(with ``decision_ms``) overruns its time has the server's default action
played for it (:func:`tricktable.rules.defaults.default_action`) and one fault counted, by kind; at
``forfeit_after`` faults (:class:`tricktable.tournament.faults.FaultTally`, the rule's one home) the
match stops, recorded as aborted, and the entrant forfeits it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tricktable.bots import make_bot
from tricktable.client_sdk.bot import Bot, BotFault, is_pending, not_an_action, split_choice
from tricktable.rules.actions import Action
from tricktable.rules.defaults import default_action
from tricktable.rules.errors import RuleError
from tricktable.rules.game import Seat
from tricktable.rules.match import MAX_DEALS, Match, play_out
from tricktable.rules.registry import new_match
from tricktable.tournament.entrants import FORFEIT_AFTER, EntrantSpec
from tricktable.tournament.faults import FaultTally
from tricktable.tournament.schedule import MatchSpec

#: Outcome statuses: played to the end; stopped because an entrant forfeited; stopped at the deal limit
#: and won by the side(s) ahead; could not be played.
STATUSES: tuple[str, ...] = ("finished", "forfeit", "adjudicated", "error")


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchOutcome:
    """What a runner returns for one match."""

    match_id: str
    status: str
    #: Winning sides (record's ``result.winners``); for a forfeit, every side but the forfeiter's.
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str = ""
    forfeit_by: str | None = None
    #: Entrant name -> faults (crashes, illegal actions, timeouts) in this match.
    faults: Mapping[str, int] = field(default_factory=dict)
    #: Entrant name -> its faults by kind (:data:`tricktable.tournament.faults.KINDS`), for those with any.
    fault_kinds: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    #: Entrant name -> the end of what its bot processes wrote to stderr in this match (over the server; at most
    #: :data:`tricktable.bots.stderr.STDERR_TAIL_BYTES` each), for those that wrote any.
    stderr: Mapping[str, str] = field(default_factory=dict)
    record: Mapping[str, Any] = field(default_factory=dict)
    table_id: str | None = None
    duration_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (Ray transport, exports)."""
        return {"match_id": self.match_id, "status": self.status, "winners": list(self.winners),
                "scores": list(self.scores), "reason": self.reason, "forfeit_by": self.forfeit_by,
                "faults": dict(self.faults), "fault_kinds": {k: dict(v) for k, v in self.fault_kinds.items()},
                "stderr": dict(self.stderr), "record": dict(self.record), "table_id": self.table_id,
                "duration_s": self.duration_s}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchOutcome:
        """Inverse of :meth:`to_json`."""
        return cls(match_id=data["match_id"], status=data["status"], winners=tuple(data["winners"]),
                   scores=tuple(data["scores"]), reason=data.get("reason", ""), forfeit_by=data.get("forfeit_by"),
                   faults=dict(data.get("faults", {})),
                   fault_kinds={k: dict(v) for k, v in data.get("fault_kinds", {}).items()},
                   stderr=dict(data.get("stderr", {})), record=dict(data.get("record", {})),
                   table_id=data.get("table_id"), duration_s=float(data.get("duration_s", 0.0)))


class MatchRunner(Protocol):
    """Plays matches. ``run`` is called from worker threads or processes, so runners hold no shared state."""

    def run(self, spec: MatchSpec, entrants: Mapping[str, EntrantSpec]) -> MatchOutcome:
        """Play ``spec`` to its end (or a forfeit) and return the outcome; never raises for a bot's fault."""
        ...


def forfeit_winners(spec: MatchSpec, loser: str) -> tuple[int, ...]:
    """Every side without the forfeiting entrant."""
    return tuple(i for i, names in enumerate(spec.side_entrants()) if loser not in names)


def bot_seed(spec: MatchSpec, seat: int) -> str:
    """The seed of a seat's own choices: fixed by the match, so a rerun plays the same.

    A one-way hash of the deck seed: a bot is handed its seed (a command line),
    and must not learn the decks from it.
    """
    return hashlib.sha256(f"tricktable-bot|{spec.seed}|{spec.match_id}|{seat}".encode()).hexdigest()[:32]


class _Forfeit(Exception):
    """An entrant reached ``forfeit_after`` faults: the match stops where it stands."""

    def __init__(self, match: Match, name: str, reason: str) -> None:
        super().__init__(reason)
        self.match = match
        self.name = name
        self.reason = reason


class LocalRunner:
    """Plays a match in this process: the rules engine as the table, in-process bots at the seats.

    Every entrant must be a ``bot`` (a command needs the server runner).
    ``decision_ms`` counts an overrun as a fault (a local bot cannot be
    interrupted; its late answer is replaced by the default action).
    """

    def __init__(self, *, forfeit_after: int = FORFEIT_AFTER, decision_ms: int | None = None,
                 max_deals: int = MAX_DEALS) -> None:
        self.forfeit_after = forfeit_after
        self.decision_ms = decision_ms
        self.max_deals = max_deals

    def run(self, spec: MatchSpec, entrants: Mapping[str, EntrantSpec]) -> MatchOutcome:
        """Play ``spec``; see the module's fault rules."""
        started = time.perf_counter()
        match = new_match(spec.game, spec.options, seed=spec.seed)
        faults = FaultTally(spec.seats, self.forfeit_after)
        bots: dict[int, Bot] = {}
        for index, name in enumerate(spec.seats):
            entrant = entrants[name]
            if entrant.bot is None:
                raise ValueError(f"entrant {name!r} is a command; the in-process runner plays only bots it can import")
            try:
                bots[index] = make_bot(entrant.bot, bot_seed(spec, index))
            except Exception as exc:  # a bot that cannot even start forfeits
                reason = f"forfeit: {name} (seat {index}) could not start: {type(exc).__name__}: {exc}"
                faults.reach_limit(name, "could_not_start")
                return self._forfeit(spec, match, name, reason, faults, started)
        limit = None if self.decision_ms is None else self.decision_ms / 1000.0

        def choose(state: Match, seat: Seat) -> Action:
            """The seat's bot's action; a fault plays the server's default action instead, and may end the match."""
            name = spec.seats[seat]
            problem: str | None = None
            kind = "garbage"
            asked = time.perf_counter()
            action: Action | None = None
            try:
                choice = bots[seat].choose_action(state.view(seat))
                if is_pending(choice):
                    raise TypeError("asynchronous bots need the server runner")
                answer, _ = split_choice(choice)  # in-process play keeps no notes
                problem = not_an_action(answer)
                if isinstance(answer, Action):  # exactly when there is no problem
                    state.check(answer, seat)
                    action = answer
            except RuleError as exc:
                problem, kind = f"illegal action: {exc}", "illegal_action"
            except BotFault as exc:  # a program or a URL that gave no valid answer: its own words
                problem, kind = str(exc), exc.kind
            except Exception as exc:  # a bot's bug is a fault of that bot, never the tournament's end
                problem, kind = f"crashed: {type(exc).__name__}: {exc}", "crashed"
            if problem is None and limit is not None and time.perf_counter() - asked > limit:
                problem, kind = f"timed out (over {self.decision_ms} ms)", "late"
                action = None  # as on the server: the late answer is dropped, the default action plays
            if problem is not None and faults.count(name, kind):
                raise _Forfeit(state, name, f"forfeit: {name} (seat {seat}) {problem} ({faults.total(name)} faults)")
            # The server's default for a seat that times out or is away: one default everywhere.
            return action if action is not None else default_action(state.view(seat))

        try:
            match = play_out(match, choose, max_deals=self.max_deals)
        except _Forfeit as forfeit:
            return self._forfeit(spec, forfeit.match, forfeit.name, forfeit.reason, faults, started)
        result = match.result
        if result is None:  # not over within the deal limit
            return self._adjudicate(spec, match, faults, started)
        record = match.to_record(seed=spec.seed, names=list(spec.seats))
        status = "finished" if result.status == "finished" else "error"
        return MatchOutcome(match_id=spec.match_id, status=status, winners=result.winners, scores=result.scores,
                            reason=result.reason, faults=faults.totals(), fault_kinds=faults.kinds(), record=record,
                            duration_s=time.perf_counter() - started)

    def _adjudicate(self, spec: MatchSpec, match: Any, faults: FaultTally, started: float) -> MatchOutcome:
        scores = tuple(match.scores_before)
        best = max(scores)
        winners = tuple(i for i, s in enumerate(scores) if s == best)
        reason = (f"adjudicated: no end after {self.max_deals} deals; side(s) "
                  f"{', '.join(map(str, winners))} ahead {'-'.join(map(str, scores))}")
        aborted = match.abort(reason)
        record = aborted.to_record(seed=spec.seed, names=list(spec.seats))
        return MatchOutcome(match_id=spec.match_id, status="adjudicated", winners=winners, scores=scores,
                            reason=reason, faults=faults.totals(), fault_kinds=faults.kinds(), record=record,
                            duration_s=time.perf_counter() - started)

    def _forfeit(self, spec: MatchSpec, match: Any, name: str, reason: str, faults: FaultTally,
                 started: float) -> MatchOutcome:
        aborted = match.abort(reason)
        record = aborted.to_record(seed=spec.seed, names=list(spec.seats))
        return MatchOutcome(match_id=spec.match_id, status="forfeit", winners=forfeit_winners(spec, name),
                            scores=tuple(aborted.scores), reason=reason, forfeit_by=name, faults=faults.totals(),
                            fault_kinds=faults.kinds(), record=record, duration_s=time.perf_counter() - started)
