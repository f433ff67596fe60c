"""The conformance check's verdicts: what a situation's client must have done, read from the relay and the record.

Each situation of :mod:`tricktable.server.conformance` plays one or more
tables; each table's :class:`Run` holds what the relay saw of the client
there (:class:`tricktable.server.conformance_relay.Script`) and the
server's record. :func:`judge` turns the runs of a situation into one
:class:`Verdict` whose detail says what passed or, for a failure, every
problem found, naming the table and seat it was found at.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.defaults import default_action
from tricktable.server.conformance_relay import INVALID_ACTION_ID, Script


@dataclass(slots=True)
class Verdict:
    """The outcome of one situation: passed, failed, or skipped (the client declared it unsupported)."""

    situation: str
    passed: bool
    detail: str
    output_tail: list[str] = field(default_factory=list)
    skipped: bool = False

    def line(self) -> str:
        """The report line: ``PASS name: detail``, ``FAIL name: detail`` or ``SKIP name: detail``."""
        word = "SKIP" if self.skipped else "PASS" if self.passed else "FAIL"
        return f"{word} {self.situation}: {self.detail}"


@dataclass(slots=True)
class Run:
    """What one table of a situation produced, for the checks."""

    script: Script
    table_id: str
    exit_code: int | None
    timed_out: bool
    record: dict[str, Any] | None
    output: list[str]
    #: The client's seat at this table (None: it only watched, as a spectator) and the table's players.
    seat: int | None = 0
    players: int = 0

    def where(self) -> str:
        """The table and seat, as a problem names them."""
        return f"table {self.table_id}" + ("" if self.seat is None else f", seat {self.seat} of {self.players}")


@dataclass(frozen=True, slots=True)
class Checks:
    """What a situation checks beyond a whole game played: its name's problems, and whether defaults may occur."""

    specific: Callable[[Run, int], list[str]] | None = None
    #: The client's seat may have default actions (the situation causes one and checks it).
    defaults_allowed: bool = False


def judge(name: str, runs: Sequence[Run], *, decision_ms: int) -> Verdict:
    """The verdict of a situation from its tables' runs."""
    checks = _CHECKS.get(name, Checks())
    problems: list[str] = []
    failing: list[Run] = []
    for run in runs:
        found = _spectator_problems(run) if run.seat is None else _common_problems(run, checks.defaults_allowed)
        if checks.specific is not None:
            found += checks.specific(run, decision_ms)
        problems += [f"{run.where()}: {p}" for p in found] if len(runs) > 1 else found
        failing += [run] if found else []
    if name == "play-many":
        problems += _play_many_problems(runs)
    if problems:  # what the failing client wrote, else (a problem of all the runs together) any client's
        tail = next((r.output for r in [*failing, *runs] if r.output), [])
        return Verdict(situation=name, passed=False, detail="; ".join(problems), output_tail=tail[-15:])
    return Verdict(situation=name, passed=True, detail=_detail(name, runs, decision_ms))


def _detail(name: str, runs: Sequence[Run], decision_ms: int) -> str:
    """What a passing situation showed."""
    run = runs[0]
    script = run.script
    answered = sum(1 for r in runs for d in r.script.decisions.values() if d.accepted)
    result = (run.record or {}).get("result", {})
    detail = f"{answered} decisions answered, game {result.get('status')} (table {run.table_id})"
    if name == "rejection":
        detail += f"; refused with {script.mutated_outcome}, answered again"
    elif name == "reconnect":
        detail += f"; rejoined with last_seen_sequence {script.dropped_after_sequence}, re-sent decision answered"
    elif name == "coalesced":
        asked = any(s.coalesce for s in script.streams)
        detail += ("; joined with coalesce_events, events held until its decisions" if asked
                   else "; the client did not ask for coalesced events (an option): plain delivery")
    elif name == "clock":
        slowest = max((d.latency() or 0.0 for d in script.decisions.values()), default=0.0)
        detail += f"; slowest answer {slowest * 1000:.0f} ms of {decision_ms} ms"
    elif name == "every-seat":
        layouts: dict[int, list[int]] = {}
        for r in runs:
            layouts.setdefault(r.players, []).append(r.seat or 0)
        seats = ", ".join(f"seats {min(s)}-{max(s)} of {n}" for n, s in sorted(layouts.items()))
        detail = f"{len(runs)} games finished ({seats}), {answered} decisions answered"
    elif name == "play-many":
        detail = (f"{len(runs)} tables played on one PlayMany call, every game finished, {answered} decisions "
                  f"answered")
    elif name == "spectate":
        events = max((s.last_sequence or 0) for s in script.streams)
        detail = (f"followed table {run.table_id} to game_ended (last sequence {events}), game "
                  f"{result.get('status')}, no hidden card shown")
    elif name == "annotations":
        detail += f"; {len(_sent_annotations(script))} annotations sent, each on its action in the record"
    elif name == "default-action":
        late = script.late_request
        decision = late.decision_id if late is not None else "?"
        outcome = script.late_outcome
        answered_late = ("acknowledged as a duplicate (it was the default's action)" if outcome == "a duplicate"
                         else f"refused with {outcome}" if outcome else "never answered")
        detail += (f"; its answer to decision {decision} arrived after the clock: the default was played "
                   f"(action_timed_out received), the late answer {answered_late}, and the client played on")
    return detail


def _seat_counters(run: Run) -> dict[str, Any]:
    for entry in (run.record or {}).get("seats", []):
        if entry.get("seat") == run.seat:
            return dict(entry)
    return {}


def _common_problems(run: Run, defaults_allowed: bool = False) -> list[str]:
    """A seat's run: the client exited 0, joined, got game_ended, the game finished, and (unless the situation
    causes one) no timeout or default action was counted for its seat."""
    problems = _ending_problems(run)
    if not run.script.streams:
        problems.append("the client never opened a Play, PlayMany or Watch stream")
    elif not any(s.joined for s in run.script.streams):
        problems.append("the client never joined")
    if run.record is None:
        return [*problems, "no record: the table did not end"]
    problems += _finished_problems(run)
    if not defaults_allowed:
        counters = _seat_counters(run)
        for name in ("timeouts", "default_actions"):
            if counters.get(name):
                problems.append(f"the server counted {counters[name]} {name.replace('_', ' ')} for the client's seat")
    if not any(d.accepted for d in run.script.decisions.values()):
        problems.append("the client had no decision accepted")
    return problems


def _ending_problems(run: Run) -> list[str]:
    problems = []
    if run.timed_out:
        problems.append("the client did not exit before the time limit")
    elif run.exit_code != 0:
        problems.append(f"the client exited with status {run.exit_code}")
    if not run.script.game_ended:
        problems.append("game_ended never reached the client")
    return problems


def _finished_problems(run: Run) -> list[str]:
    result = (run.record or {}).get("result", {})
    status = result.get("status")
    return [] if status == "finished" else [f"the game was {status}: {result.get('reason', '')}"]


def _spectator_problems(run: Run) -> list[str]:
    """A spectator's run: it opened Spectate on the table, followed it to game_ended and exited 0; nothing it was
    sent showed a hidden card."""
    problems = _ending_problems(run)
    spectating = [s for s in run.script.streams if s.kind == "spectate"]
    if not spectating:
        problems.append(f"the client never opened Spectate on table {run.table_id}")
    elif not any(s.joined for s in spectating):
        problems.append("the client's Spectate never started (no SpectateStarted)")
    if run.record is None:
        return [*problems, "no record: the table did not end"]
    problems += _finished_problems(run)
    hidden = run.script.hidden
    if hidden:
        problems.append(f"the spectator was sent hidden cards ({len(hidden)}): " + "; ".join(hidden[:3]))
    return problems


def _rejection_problems(run: Run, decision_ms: int) -> list[str]:
    script = run.script
    if script.mutated_decision is None:
        return ["the client never answered a decision, so nothing could be refused"]
    if script.mutated_outcome == "accepted":
        return [f"the server accepted the action id {INVALID_ACTION_ID!r} (server bug)"]
    if not script.mutated_outcome:
        return ["the server's answer to the refused decide never reached the client"]
    log = script.decisions.get(script.mutated_decision)
    if log is None or len(log.answers) < 2:
        return [f"after the rejection ({script.mutated_outcome}) the client did not answer decision "
                f"{script.mutated_decision} again"]
    if not log.accepted:
        return [f"the client's new answer to decision {script.mutated_decision} was not accepted "
                f"(refusals: {', '.join(log.rejections)})"]
    return []


def _reconnect_problems(run: Run, decision_ms: int) -> list[str]:
    script = run.script
    if script.dropped_after_sequence is None:
        return [f"the game gave the client fewer than {script.drop_at_decision} decisions; nothing was dropped"]
    dropped = next(i for i, s in enumerate(script.streams) if s.dropped)
    later = [s for s in script.streams[dropped + 1:] if s.token]
    if not later:
        return ["the client did not open a new stream after the drop"]
    resumed = later[0]
    if resumed.last_seen_sequence is None:
        return ["the client rejoined without last_seen_sequence"]
    if resumed.last_seen_sequence != script.dropped_after_sequence:
        return [f"the client rejoined with last_seen_sequence {resumed.last_seen_sequence}, but the last sequence "
                f"it received was {script.dropped_after_sequence}"]
    withheld = script.decisions.get(script.withheld_decision or "")
    if withheld is None:
        return [f"decision {script.withheld_decision} was never re-sent to the client after its rejoin"]
    if not withheld.accepted:
        return [f"the client did not answer the re-sent decision {script.withheld_decision}"]
    return []


def _clock_problems(run: Run, decision_ms: int) -> list[str]:
    slow = [(d.decision_id, d.latency()) for d in run.script.decisions.values()]
    late = [(i, lat) for i, lat in slow if lat is None or lat * 1000 > decision_ms]
    if late:
        shown = ", ".join(f"{i} ({'unanswered' if lat is None else f'{lat * 1000:.0f} ms'})" for i, lat in late[:5])
        return [f"{len(late)} decision(s) not answered within {decision_ms} ms: {shown}"]
    return []


def _sent_annotations(script: Script) -> dict[str, dict[str, Any]]:
    """The annotation of the client's last answer to each decision that carried one, in the record's form."""
    sent: dict[str, dict[str, Any]] = {}
    for decision_id, annotation in script.annotations:
        form: dict[str, Any] = {}
        if annotation.note:
            form["note"] = annotation.note
        if annotation.values:
            form["values"] = dict(annotation.values)
        if form:
            sent[decision_id] = form
    return sent


def _annotation_problems(run: Run, decision_ms: int) -> list[str]:
    """Every annotation the client sent is on its action in the record, and no action has one it did not send."""
    script = run.script
    sent = _sent_annotations(script)
    if not sent:
        return ["the client sent no annotation (Decide.annotation); a client that does not annotate declares it "
                "with --skip annotations"]
    played = [d for d in script.decision_order if script.decisions[d].accepted]
    actions = [a for deal in (run.record or {}).get("deals", []) for a in deal.get("actions", [])
               if a.get("seat") == run.seat]
    if len(actions) != len(played):
        return [f"the record holds {len(actions)} actions of the client's seat for {len(played)} accepted decisions"]
    wrong = [f"decision {d}: sent {sent.get(d)}, recorded {a.get('annotation')}"
             for d, a in zip(played, actions, strict=True) if a.get("annotation") != sent.get(d)]
    if wrong:
        return [f"{len(wrong)} annotation(s) not in the record as sent: " + "; ".join(wrong[:3])]
    return []


def _legal_of(request: pb.DecisionRequest) -> tuple[Any, ...]:
    """A decision request's legal actions (its enumerated ones, or those its discard choice stands for)."""
    if request.HasField("discard_choice"):
        return convert.discard_choice_from_proto(request.discard_choice)
    return tuple(convert.legal_actions_from_proto(request.legal_actions).values())


def _default_problems(run: Run, decision_ms: int) -> list[str]:
    """The held answer's decision got the documented default, told to the client, and the client played on."""
    script = run.script
    late = script.late_request
    if late is None:
        return ["the client had no decision, so no answer could come late"]
    problems = []
    told = script.timed_out.get(late.decision_id)
    if told is None:
        problems.append(f"no action_timed_out for decision {late.decision_id} reached the client")
    else:
        expected = default_action(convert.view_from_proto(late.view, legal_actions=_legal_of(late)))
        played = convert.action_from_proto(told.action)
        if played != expected:
            problems.append(f"the default played for decision {late.decision_id} was {convert.action_id(played)}, "
                            f"not the documented {convert.action_id(expected)} (server bug)")
    if script.late_outcome == "accepted":
        problems.append(f"the server played the late answer to decision {late.decision_id} after its default "
                        f"(server bug)")
    counters = _seat_counters(run)
    if run.record is not None and (counters.get("timeouts"), counters.get("default_actions")) != (1, 1):
        problems.append(f"the server counted {counters.get('timeouts', 0)} timeouts and "
                        f"{counters.get('default_actions', 0)} default actions for the client's seat, not 1 and 1 "
                        f"(the client answered another decision late, or not at all)")
    order = script.decision_order
    after = order[order.index(late.decision_id) + 1:] if late.decision_id in order else []
    if not any(script.decisions[d].accepted for d in after):
        problems.append(f"the client answered no decision after the default of decision {late.decision_id}")
    return problems


def _play_many_problems(runs: Sequence[Run]) -> list[str]:
    """Every table's seat played on one PlayMany call (its conversations), none on a Play or Watch stream."""
    calls = {s.call for r in runs for s in r.script.streams if s.joined}
    apart = sorted({s.kind for r in runs for s in r.script.streams if s.call is None})
    problems = []
    if apart:
        problems.append(f"the client played seats on {' and '.join(apart)} streams, not over one PlayMany call")
    calls.discard(None)
    if len(calls) > 1:
        problems.append(f"the client spread its {len(runs)} seats over {len(calls)} PlayMany calls, not one")
    return problems


_CHECKS: dict[str, Checks] = {
    "rejection": Checks(_rejection_problems),
    "reconnect": Checks(_reconnect_problems),
    "clock": Checks(_clock_problems),
    "annotations": Checks(_annotation_problems),
    "default-action": Checks(_default_problems, defaults_allowed=True),
}
