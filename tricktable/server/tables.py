"""One authoritative table: the match, its seats, clocks and event logs.

The table is the only writer of its state. It owns a :class:`tricktable.rules.match.Match`
started from a seed only it knows, validates every action with the engine,
and writes what happened to one event log per seat and one for the
spectators, each cut to what that audience may know. It runs on the event
loop without awaiting anything, so each method is atomic: two submits of
the same decision can not both play.

Life: ``waiting`` (seats join; cancelled if they do not all join in time)
-> ``running`` -> ``finished`` or ``aborted`` (with a reason). Whatever
happens, :meth:`Table._end` runs exactly once and hands the record to the
``on_end`` callback, which stores it.

Crash survival: with a ``journal`` sink set, the table hands it a step
(:mod:`tricktable.server.journal`) before it publishes anything that step caused, so
:meth:`Table.replay` can rebuild it after a restart with the same logs and
sequence numbers. :meth:`Table.suspend` freezes a table the next start will
resume (the server is stopping). A table whose journal lost part of it to a
failed write (a full disk) holds its end until the journal holds none of it
(``TableJournal.settled``): its seats never receive the end of a game a
restart could resume.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

import structlog

from tricktable.protocol.reasons import RejectReason, reason_for
from tricktable.rules.actions import Action
from tricktable.rules.annotation import Annotation
from tricktable.rules.defaults import default_action
from tricktable.rules.errors import RuleError
from tricktable.rules.events import ACTION_EVENTS
from tricktable.rules.frozen import evolve
from tricktable.rules.game import Seat, SeatView
from tricktable.rules.match import MAX_DEALS, Match
from tricktable.rules.record import action_from_json, action_to_json, annotate_record
from tricktable.rules.shuffle import seed_commitment
from tricktable.server.clocks import AWAY_AFTER_TIMEOUTS, AWAY_ANSWER_SECONDS, SeatClock, TimeControl
from tricktable.server.errors import ShuttingDownError
from tricktable.server.events import (
    ActionTimedOut,
    Audience,
    DecisionRequested,
    DefaultReason,
    Event,
    EventBody,
    GameEvent,
    SeatDisconnected,
    SeatJoined,
    TableEnded,
    TableStarted,
)
from tricktable.server.journal import Step, TableJournal
from tricktable.server.metrics import Metrics
from tricktable.server.seats import SeatState, clean_name
from tricktable.server.visibility import public_view
from tricktable.server.withholding import DeckSet, twin_key

T = TypeVar("T")

#: A table that reaches this many actions, or :data:`tricktable.rules.match.MAX_DEALS` deals, is aborted: guards so that
#: no table can run for ever (docs/games.md 3.6 puts no floor under Cinq Cents scores).
MAX_ACTIONS = 50_000
#: Presence events (joined, disconnected) published per seat: a client that reconnects in a loop must not
#: grow every audience's log without end (the record still counts every disconnect).
MAX_PRESENCE_EVENTS = 100
#: Bytes of server randomness in each table's salt (given when a table is rebuilt, else drawn).
SALT_BYTES = 16
#: Events at most in one batch (:meth:`Table.follow_batches`): a client resuming far back gets several.
MAX_BATCH_EVENTS = 200
#: Longest a coalescing seat's information waits for its next decision before it is sent alone (seconds,
#: ``Join.coalesce_events``): long enough that a bot's events mostly ride with its decisions, short enough
#: that a watching client is never far behind.
COALESCE_SECONDS = 0.2


class TableStatus(StrEnum):
    """Where a table is in its life."""

    WAITING = "waiting"
    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """The answer to a submitted action: accepted (maybe as a duplicate) or rejected with a reason."""

    accepted: bool
    duplicate: bool = False
    reason: RejectReason | None = None
    message: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """What a joining stream is sent first: the audience's full view and the last sequence number it includes."""

    seq: int
    status: TableStatus
    view: SeatView


@dataclass(slots=True)
class _Pending:
    decision_id: int
    seat: Seat
    legal: tuple[Action, ...]
    deadline_wall: float
    #: When (loop time) the server plays the default, and why: the seat's time ran out, or it is away.
    due: float
    reason: DefaultReason
    body: DecisionRequested | None = None
    #: When (loop time) the decision was requested: the seat's thinking is counted from it.
    asked_at: float = 0.0


class Table:
    """An authoritative table. Create it with a started match; seats join with :meth:`connect`."""

    def __init__(
        self,
        *,
        table_id: str,
        match: Match,
        seed: str,
        time_control: TimeControl,
        names: list[str] | None = None,
        on_end: Callable[[Table], None] | None = None,
        max_actions: int = MAX_ACTIONS,
        max_deals: int = MAX_DEALS,
        salt: str | None = None,
        seed_chosen: bool = False,
        sealed: bool = False,
        deck_set: DeckSet | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.id = table_id
        self.match = match
        self.game = match.rules.name
        self.players = match.config.players
        #: The resolved options, the first dealer included (drawn from the seed when unset; who deals is public).
        self.options = match.config.to_options()
        self._seed = seed
        #: Fresh server randomness per table, revealed with the seed in the record (a journal keeps it to resume).
        self.salt = secrets.token_hex(SALT_BYTES) if salt is None else salt
        #: The commitment published at creation: SHA-256 of salt + seed.
        self.seed_sha256 = seed_commitment(seed, self.salt)
        #: The creator chose the seed (tests, tournaments), so other tables may deal the same decks.
        self.seed_chosen = seed_chosen
        #: The creator sealed the table: record, spectating and progress only with its owner token.
        self.sealed = sealed
        #: Where a sealed table sits among the tables dealt from its seed; None: sealed for good.
        self.deck_set = deck_set
        #: What groups this table with its twins (tables dealt from the same chosen seed); '': a drawn seed.
        self.twin_key = twin_key(seed) if seed_chosen else ""
        #: The creator's credential (set by the lobby; in memory only until CreateTable returns it) and its
        #: digest, which is what is kept: it reads what is withheld from everyone else.
        self.owner_token = ""
        self.owner_digest = ""
        self.time_control = time_control
        self.created_at = time.time()
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self.status = TableStatus.WAITING
        given = names or []
        self.seats = [
            SeatState(seat=s, name=clean_name(given[s] if s < len(given) else "", f"seat-{s}"), token_digest="")
            for s in range(self.players)
        ]
        self._clocks = [SeatClock(time_control) for _ in range(self.players)]
        self._logs: list[list[Event]] = [[] for _ in range(self.players + 1)]
        #: One waker per audience (seats, then spectators): set when its log or pending decision changes.
        self._wakers = [asyncio.Event() for _ in range(self.players + 1)]
        #: Followers of each audience waiting for any news (:meth:`_wait_for_news`); a coalescing follower that
        #: holds a batch is not counted: only its own decision, its inbox, its hold's end or the table's end wake it.
        self._eager = [0] * (self.players + 1)
        self._pending: _Pending | None = None
        #: The one timer that plays the pending decision's default (:meth:`_arm_deadline`), and when it fires.
        self._deadline_timer: asyncio.TimerHandle | None = None
        #: Seat views of one state of the match (``_views_of``): a move reads the next seat's view up to three times.
        self._views_of: Match | None = None
        self._views: dict[Seat, SeatView] = {}
        self._resolved: dict[int, tuple[Seat, Action]] = {}
        #: The bots' annotations by action number (0-based over the game): secret until :meth:`_build_record`.
        self._annotations: dict[int, Annotation] = {}
        self._next_decision = 1
        self._actions = 0
        self._max_actions = max_actions
        self._max_deals = max_deals
        self._on_end = on_end
        self._loop = asyncio.get_running_loop()
        self._join_timer: asyncio.TimerHandle | None = self._loop.call_later(
            time_control.join_seconds, self._join_expired)
        self.record: dict[str, Any] | None = None
        self.ended = asyncio.Event()
        #: Where the table writes its steps (``tricktable.server.journal``); None: not journaled (or suspended).
        self.journal: TableJournal | None = None
        #: Frozen for a restart (:meth:`suspend`): nothing changes any more in this process.
        self.suspended = False
        #: Over, but its end not sent yet: the journal still holds part of it (:meth:`_release_end`).
        self.end_held = False
        self.log = structlog.get_logger("tricktable.table").bind(table=table_id, game=self.game)
        #: Where this table's moves, clocks and refusals are counted (its lobby's); None: not counted.
        self.metrics = metrics
        #: The table's unchanging public facts as ``tricktable.server.wire.table_info`` serialised them once: kept
        #: on the table so they live exactly as long as it does.
        self.fixed_info: bytes | None = None

    # --- queries ---------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Finished or aborted."""
        return self.status in (TableStatus.FINISHED, TableStatus.ABORTED)

    @property
    def names(self) -> list[str]:
        """Seat names in seat order."""
        return [s.name for s in self.seats]

    @property
    def actions_played(self) -> int:
        """Number of actions applied so far."""
        return self._actions

    def view(self, audience: Audience) -> SeatView:
        """The audience's current view (spectators: the public view)."""
        return public_view(self.match) if audience is None else self._seat_view(audience)

    def _seat_view(self, seat: Seat) -> SeatView:
        """``match.view(seat)``, built once per state of the match (views are immutable)."""
        if self._views_of is not self.match:
            self._views_of = self.match
            self._views = {}
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self.match.view(seat)
        return view

    def last_sequence(self, audience: Audience) -> int:
        """The sequence number of the audience's last event (0 before any)."""
        return len(self._log(audience))

    def snapshot(self, audience: Audience) -> Snapshot:
        """The full current view of ``audience`` and the sequence number of the last event it includes.

        While the table waits for its seats nobody may act, so the view offers no turn and no legal action
        (the first deal is dealt already: a seat sees its hand).
        """
        self._flush()
        view = self.view(audience)
        if self.status is TableStatus.WAITING:
            view = evolve(view, to_act=None, legal_actions=())
        return Snapshot(seq=self.last_sequence(audience), status=self.status, view=view)

    def pending_for(self, seat: Seat) -> DecisionRequested | None:
        """The decision ``seat`` must answer now, if any."""
        p = self._pending
        return self._decision_body(p) if p is not None and p.seat == seat else None

    async def follow(self, audience: Audience, after_seq: int = 0, inbox: deque[T] | None = None,
                     gate: Callable[[], None] | None = None) -> AsyncGenerator[Event | DecisionRequested | T]:
        """The audience's events after ``after_seq``, live, until the table has ended and all are sent.

        A seat also gets its pending decision, once, after the events that led
        to it; a decision already decided is never sent. Items a stream puts
        in ``inbox`` (its answers to the client; then :meth:`wake`) are
        yielded first, so one writer serves the stream without a second task.
        ``gate`` (a spectator's) is called before each event and after each
        wake-up; what it raises ends the stream (the table became withheld).
        """
        log = self._log(audience)
        index = max(0, min(after_seq, len(log)))
        sent = 0
        while True:
            self._flush()
            while inbox:
                yield inbox.popleft()
            while index < len(log):
                if gate is not None:
                    gate()
                yield log[index]
                index += 1
            p = self._pending
            if audience is not None and p is not None and p.seat == audience and p.decision_id > sent:
                sent = p.decision_id
                yield self._decision_body(p)
                continue
            if self.is_over and not self.end_held:
                while inbox:
                    yield inbox.popleft()
                return
            if inbox:
                continue
            await self._wait_for_news(audience)
            if gate is not None:
                gate()

    async def follow_batches(self, audience: Audience, after_seq: int = 0, inbox: deque[T] | None = None,
                             coalesce: Callable[[T], bool] | None = None, gate: Callable[[], None] | None = None,
                             ) -> AsyncGenerator[list[Event | DecisionRequested | T]]:
        """:meth:`follow` in batches: each time, everything ready at once (inbox, events, then the decision), in order.

        A stream that sends each batch as one message writes once per move
        instead of once per item (protocol: ``Join.accept_batches``).

        With ``coalesce`` (``Join.coalesce_events``; it tells which inbox items
        are for information only, like an Accepted), a batch of information
        only is held until the seat has a decision, an urgent inbox item, the
        table's end, a full batch, or :data:`COALESCE_SECONDS` since its first
        item: a seat that is not to act costs no write per move, and the
        acting seat's decision never waits behind the others' events. The
        hold starts as soon as a decision is sent, so the answer's Accepted
        needs no wake-up of its own (the stream's reader gives it none).
        ``gate`` as in :meth:`follow`: called before each batch and after each wake-up.
        """
        log = self._log(audience)
        index = max(0, min(after_seq, len(log)))
        sent = 0
        batch: list[Event | DecisionRequested | T] = []
        urgent = coalesce is None
        held_until: float | None = None
        timer: asyncio.TimerHandle | None = None
        try:
            while True:
                if gate is not None:
                    gate()
                self._flush()
                while inbox:
                    item = inbox.popleft()
                    batch.append(item)
                    urgent = urgent or coalesce is None or not coalesce(item)
                if index < len(log):  # a resume far back comes in several batches, each of a bounded size
                    end = min(len(log), index + max(0, MAX_BATCH_EVENTS - len(batch)))
                    batch.extend(log[index:end])
                    index = end
                p = self._pending
                if (index == len(log) and audience is not None and p is not None and p.seat == audience
                        and p.decision_id > sent):
                    sent = p.decision_id
                    batch.append(self._decision_body(p))
                    urgent = True
                if batch:
                    if (urgent or self.is_over or len(batch) >= MAX_BATCH_EVENTS
                            or (held_until is not None and self._loop.time() >= held_until)):
                        if timer is not None:
                            timer.cancel()
                        decided = isinstance(batch[-1], DecisionRequested)
                        yield batch
                        batch, urgent, held_until, timer = [], coalesce is None, None, None
                        if decided and coalesce is not None:  # the answer's Accepted is held from now on
                            held_until = self._loop.time() + COALESCE_SECONDS
                            timer = self._loop.call_at(held_until, self._wake_audience, audience)
                        continue
                    if held_until is None:
                        held_until = self._loop.time() + COALESCE_SECONDS
                        timer = self._loop.call_at(held_until, self._wake_audience, audience)
                elif self.is_over and not self.end_held:
                    return
                elif held_until is not None and self._loop.time() >= held_until:
                    held_until = timer = None  # the hold after a decision ran out with nothing to send
                await self._wait_for_news(audience, quiet=held_until is not None)
        finally:
            if timer is not None:
                timer.cancel()

    async def _wait_for_news(self, audience: Audience, quiet: bool = False) -> None:
        """Wait until the table wakes ``audience``'s followers; at once if a wake-up came since the last look.

        A set event is a wake-up the caller's loop already consumed by looking: it is replaced by a fresh one
        and the caller looks again. A ``quiet`` follower (coalescing, with a batch held) is woken only by its
        seat's decision, its inbox (:meth:`wake` of its seat), its hold's timer or the table's end, not by the
        other seats' moves: each of those would wake its task to hold one more event, the dearest part of a move
        for the seats that are not to act.

        Raises:
            ShuttingDownError: the table is suspended for a restart (the stream ends with UNAVAILABLE).
        """
        key = self.players if audience is None else audience
        waker = self._wakers[key]
        if self.suspended:
            raise ShuttingDownError("the server is restarting: rejoin with the same token and the last sequence seen")
        if waker.is_set():
            self._wakers[key] = asyncio.Event()
            return
        if quiet:
            await waker.wait()
            return
        self._eager[key] += 1
        try:
            await waker.wait()
        finally:
            self._eager[key] -= 1

    def _wake_audience(self, audience: Audience) -> None:
        """Wake one audience's followers, quiet ones too (a coalescing follower's hold ran out, its inbox filled)."""
        self._wakers[self.players if audience is None else audience].set()

    def wake(self, seat: Seat | None = None) -> None:
        """Wake ``seat``'s followers (its stream put something in its inbox); None: every follower waiting for news."""
        if seat is None:
            self._notify()
        else:
            self._wake_audience(seat)

    # --- seats -----------------------------------------------------------

    def connect(self, seat: Seat, name: str = "") -> None:
        """A stream of ``seat`` opened (join or resume). The table starts once every seat has joined."""
        state = self.seats[seat]
        state.connections += 1
        if name:
            state.name = clean_name(name, state.name)
        if state.grace is not None:
            state.grace.cancel()
            state.grace = None
        was_away, state.away = state.away, False
        first = not state.joined
        state.joined = True
        self.log.info("seat connected", seat=seat, first=first, was_away=was_away)
        if (self.status is TableStatus.RUNNING and not self.suspended and state.connections == 1
                and state.disconnects <= MAX_PRESENCE_EVENTS):
            self._write_step({"k": "joined", "s": seat, "name": state.name, "r": not first})
            self._publish_all(SeatJoined(seat=seat, name=state.name, rejoined=not first))
            self._notify()
        if self.status is TableStatus.WAITING and not self.suspended and all(s.joined for s in self.seats):
            self._guard(self._start)

    def disconnect(self, seat: Seat) -> None:
        """A stream of ``seat`` closed. After the grace period with no stream open, the seat is away."""
        state = self.seats[seat]
        state.connections = max(0, state.connections - 1)
        if state.connections or self.is_over or self.suspended:
            return
        state.disconnects += 1
        self.log.info("seat disconnected", seat=seat, grace=self.time_control.grace_seconds)
        if self.status is TableStatus.RUNNING and state.disconnects <= MAX_PRESENCE_EVENTS:
            grace_until = time.time() + self.time_control.grace_seconds
            self._write_step({"k": "left", "s": seat, "g": grace_until})
            self._publish_all(SeatDisconnected(seat=seat, grace_until=grace_until))
            self._notify()
        if state.grace is None:
            state.grace = self._loop.call_later(self.time_control.grace_seconds, self._grace_expired, seat)

    def _grace_expired(self, seat: Seat) -> None:
        state = self.seats[seat]
        state.grace = None
        if state.connections or self.is_over:
            return
        state.away = True
        self.log.info("seat away after grace period", seat=seat)
        p = self._pending
        if p is not None and p.seat == seat:
            self._loop.call_soon(self._guarded_default, p.decision_id, DefaultReason.AWAY)

    def _join_expired(self) -> None:
        self._join_timer = None
        if self.status is not TableStatus.WAITING:
            return
        missing = [s.seat for s in self.seats if not s.joined]
        self.abort(f"cancelled: seat(s) {', '.join(map(str, missing))} did not join within "
                   f"{self.time_control.join_seconds:g}s")

    # --- playing ---------------------------------------------------------

    def submit(self, seat: Seat, decision_id: int, action: Action, annotation: Annotation | None = None) -> Outcome:
        """Seat ``seat`` answers decision ``decision_id`` with ``action`` (and its bot's ``annotation``).

        A refusal changes nothing but the seat's rejection counter; the same
        answer to an already played decision is accepted as a duplicate and
        plays nothing (its annotation is the first one's). The annotation is
        kept with the action, journaled, and published by nothing but the
        record.
        """
        self._heard_from(seat)
        done = self._resolved.get(decision_id)
        if done is not None and done == (seat, action):
            return Outcome(accepted=True, duplicate=True, message=f"decision {decision_id} was already played")
        refused = self.refuse(seat, decision_id)
        if refused is not None:
            return refused
        p = self._pending
        if p is None:  # refuse() returns None only for the seat's pending decision
            raise RuntimeError(f"decision {decision_id} passed refuse() with no decision pending")
        try:
            after = self.match.apply(action, seat)  # checks first; a refused action changes nothing
        except RuleError as error:
            return self._reject(seat, reason_for(error.code), error.message)
        except Exception as error:  # an engine fault on odd input refuses the action, it does not end the table
            self.log.exception("engine failed to check an action", seat=seat, action=repr(action))
            return self._reject(seat, RejectReason.MALFORMED_ACTION, f"the action could not be checked: {error}")
        answered = self._loop.time()
        self._clocks[seat].stop(answered)
        if self.metrics is None:
            self._guard(self._play, p, action, None, after, annotation)
            return Outcome(accepted=True)
        self.metrics.think.labels(self.metrics.bot(self.names[seat])).observe(answered - p.asked_at)
        started = time.perf_counter()
        self._guard(self._play, p, action, None, after, annotation)
        self.metrics.step.observe(time.perf_counter() - started)
        return Outcome(accepted=True)

    def _heard_from(self, seat: Seat) -> None:
        """``seat`` answered (any decide): its timeouts in a row start again, and it is no longer away."""
        state = self.seats[seat]
        state.timeouts_in_a_row = 0
        if state.away and state.connections:
            state.away = False
            self.log.info("seat answers again: no longer away", seat=seat)

    def refuse(self, seat: Seat, decision_id: int | None) -> Outcome | None:
        """The refusal (counted) of any answer by ``seat`` to ``decision_id``; None for its pending decision.

        Whatever the action, in this order (docs/protocol.md section 8): not
        started, already decided, game over, not the seat's turn, not the
        pending decision. ``None`` is an id the server never issued.
        """
        if self.status is TableStatus.WAITING:
            return self._reject(seat, RejectReason.NOT_STARTED, "the table has not started: not every seat has joined")
        if self.suspended:
            return self._reject(seat, RejectReason.STALE_DECISION,
                                "the server is restarting: rejoin and answer the decision it sends then")
        if decision_id in self._resolved:
            return self._reject(seat, RejectReason.STALE_DECISION,
                                f"decision {decision_id} is already decided; it can not be changed")
        if self.is_over:
            return self._reject(seat, RejectReason.GAME_OVER, f"the table is {self.status.value}")
        p = self._pending
        if p is None or p.seat != seat:
            whose = "" if p is None else f"; seat {p.seat} is to act"
            return self._reject(seat, RejectReason.NOT_YOUR_TURN, f"seat {seat} has no decision pending{whose}")
        if decision_id != p.decision_id:
            named = "that decision id" if decision_id is None else f"decision {decision_id}"
            return self._reject(seat, RejectReason.STALE_DECISION,
                                f"{named} is not pending; the pending decision is {p.decision_id}")
        return None

    def resolved(self, decision_id: int) -> tuple[Seat, Action] | None:
        """The seat and action that settled an earlier decision, or None."""
        return self._resolved.get(decision_id)

    def reject(self, seat: Seat, reason: RejectReason, message: str) -> Outcome:
        """Refuse a seat's message for a reason found outside the table (malformed, unknown action id)."""
        self._heard_from(seat)
        return self._reject(seat, reason, message)

    def _reject(self, seat: Seat, reason: RejectReason, message: str) -> Outcome:
        state = self.seats[seat]
        state.rejected += 1
        if self.metrics is not None:
            self.metrics.rejections.labels(reason.value.lower()).inc()
            self.metrics.faults.labels(self.metrics.bot(self.names[seat])).inc()
        if state.rejected & (state.rejected - 1) == 0:
            # Sampled: the 1st, 2nd, 4th, 8th ... refusal of a seat, each with the running count, so a client
            # flooding refused messages costs a few log lines, not one per message (the record has the total).
            self.log.info("action rejected", seat=seat, reason=reason.value, message=message[:200],
                          rejected=state.rejected)
        return Outcome(accepted=False, reason=reason, message=message)

    def _start(self) -> None:
        if self._join_timer is not None:
            self._join_timer.cancel()
            self._join_timer = None
        self.status = TableStatus.RUNNING
        self.started_at = time.time()
        self._write_step({"k": "start", "names": self.names, "at": self.started_at})
        self.log.info("table started", seed_sha256=self.seed_sha256, names=self.names)
        self._publish_all(TableStarted(table_id=self.id, game=self.game, options=self.options,
                                       names=tuple(self.names), seed_sha256=self.seed_sha256))
        self._forward(self.match.events)
        self._request_decision()

    def _request_decision(self) -> None:
        seat = self.match.to_act
        if seat is None:
            raise RuntimeError("the match is not over but no seat is to act")
        legal = self._seat_view(seat).legal_actions  # the view lists them: computed once for the decision
        if not legal:
            raise RuntimeError(f"seat {seat} is to act but the engine offers no legal action")
        now = self._loop.time()
        expiry = self._clocks[seat].start(now)
        decision_id = self._next_decision
        self._next_decision += 1
        state = self.seats[seat]
        # An away seat's default comes at once: when nothing is connected, or after a short window in which a
        # connected client that is back can still answer (the request must reach it to be answered).
        away = min(AWAY_ANSWER_SECONDS, self.time_control.decision_seconds) if state.connections else 0.0
        p = _Pending(decision_id=decision_id, seat=seat, legal=legal,
                     deadline_wall=time.time() + (away if state.away else self.time_control.decision_seconds),
                     due=now + away if state.away else expiry,
                     reason=DefaultReason.AWAY if state.away else DefaultReason.TIMEOUT, asked_at=now)
        self._pending = p
        self._arm_deadline(p.due)

    def _arm_deadline(self, due: float) -> None:
        """Have the deadline timer fire by ``due`` (loop time), keeping the one that is set if it fires first.

        Why one timer kept: a decision answered in time left its timer
        behind; creating one per decision and cancelling it at the answer
        cost a timer and a cancelled heap entry per move. A timer that
        fires before the pending decision is due arms itself again
        (:meth:`_deadline_passed`), so a default still plays at its own
        deadline, never before.
        """
        timer = self._deadline_timer
        if timer is not None:
            if not timer.cancelled() and timer.when() <= due:
                return
            timer.cancel()
        self._deadline_timer = self._loop.call_at(due, self._deadline_passed)

    def _deadline_passed(self) -> None:
        """The deadline timer fired: play the pending decision's default if it is due, else wait for when it is."""
        self._deadline_timer = None
        p = self._pending
        if p is None or self.is_over or self.suspended:
            return
        if self._loop.time() < p.due:  # an earlier decision's deadline; this one is due later
            self._arm_deadline(p.due)
            return
        self._guarded_default(p.decision_id, p.reason)

    def _decision_body(self, p: _Pending) -> DecisionRequested:
        if p.body is None:
            p.body = DecisionRequested(decision_id=p.decision_id, seat=p.seat, legal_actions=p.legal,
                                       view=self._seat_view(p.seat), deadline=p.deadline_wall,
                                       bank_seconds=self._clocks[p.seat].bank)
        return p.body

    def _guarded_default(self, decision_id: int, reason: DefaultReason) -> None:
        self._guard(self._play_default, decision_id, reason)

    def _play_default(self, decision_id: int, reason: DefaultReason) -> None:
        p = self._pending
        if p is None or p.decision_id != decision_id or self.is_over:
            return
        state = self.seats[p.seat]
        if reason is DefaultReason.TIMEOUT:
            self._clocks[p.seat].expire()
            state.timeouts += 1
            state.timeouts_in_a_row += 1
            self.log.info("seat timed out", seat=p.seat, decision=decision_id, in_a_row=state.timeouts_in_a_row)
            if state.timeouts_in_a_row >= AWAY_AFTER_TIMEOUTS and not state.away:
                state.away = True  # the away rule: its next decisions get their defaults at once
                self.log.info("seat away after timeouts in a row", seat=p.seat, timeouts=state.timeouts_in_a_row)
        state.defaults += 1
        if self.metrics is not None:
            self.metrics.defaults.labels(self.game, reason.value).inc()
            if reason is DefaultReason.TIMEOUT:
                self.metrics.timeouts.labels(self.game).inc()
                self.metrics.faults.labels(self.metrics.bot(self.names[p.seat])).inc()
        self._play(p, default_action(self._seat_view(p.seat)), reason)

    def _play(self, p: _Pending, action: Action, default: DefaultReason | None, after: Match | None = None,
              annotation: Annotation | None = None) -> None:
        """Play ``action`` for ``p`` (``default``: why the server chose it, None for the seat's own move).

        The deadline timer stays: the next decision's is later, so it fires first and arms itself again.
        """
        self._pending = None
        self._resolved[p.decision_id] = (p.seat, action)
        before = self.match
        if after is None:
            after = before.apply(action, p.seat)
        self.match = after
        step: Step = {"k": "play", "d": p.decision_id, "s": p.seat, "a": action_to_json(action),
                      "t": None if default is None else default.value}
        if annotation:
            self._annotations[self._actions] = annotation
            step["n"] = annotation.to_json()
        self._actions += 1
        if self.metrics is not None:
            self.metrics.moves.labels(self.game).inc()
        self._write_step(step)
        if default is not None:  # marked, so every audience can tell a default from a real move
            done = next(e for e in after.events if isinstance(e, ACTION_EVENTS))  # the action's own event
            for audience in self._audiences():
                self._publish(audience, ActionTimedOut(seat=p.seat, decision_id=p.decision_id,
                                                       action=done.seen_by(audience), reason=default))
        self._forward(after.events)
        if after.is_over:
            self._end()
        elif self._actions >= self._max_actions:
            self.abort(f"move limit: {self._max_actions} actions played without a result")
        elif len(after.finished) >= self._max_deals:
            self.abort(f"deal limit: {self._max_deals} deals played without a result")
        else:
            self._request_decision()

    def _forward(self, events: tuple[GameEvent, ...]) -> None:
        """Publish the rules' events of a step to every audience, each cut to what that audience may know.

        One time for the step (its events happened together) and the logs appended in place: a move publishes
        its events to every seat and the spectators, so this loop runs about eight times a move.
        """
        now = time.time()
        audiences = self._audiences()
        for event in events:
            shared: Event | None = None
            for audience, log in zip(audiences, self._logs, strict=True):
                body = event.seen_by(audience)
                shared = _entry(log, now, body, shared if body is event else None)

    # --- the journal -----------------------------------------------------

    def _write_step(self, step: Step) -> None:
        """Hand ``step`` to the journal (before anything it caused is published), with every seat's counters and bank.

        Why the counters and banks ride along: they change without a step
        (rejections, time spent), and the record and the clocks need them back.
        """
        if self.journal is None:
            return
        step["c"] = [[s.timeouts, s.rejected, s.disconnects, s.defaults] for s in self.seats]
        step["b"] = [clock.bank for clock in self._clocks]
        self.journal.write(step)

    def _flush(self) -> None:
        """Commit the journal's open group before anything of this table is handed out (``server.journal``)."""
        if self.journal is not None:
            self.journal.flush()

    def replay(self, steps: Sequence[Step]) -> None:
        """Rebuild this new table from its journaled ``steps``: logs, pending decision, counters, banks.

        Every action goes through the rules engine again, so the logs and
        decision ids come out as they were (event times are those of the
        replay). The last pending decision's clock starts now; every seat is
        disconnected, with a full grace period to rejoin. Call it before
        setting :attr:`journal`.

        Raises:
            ValueError: a step does not fit the table (the journal of another version, or damaged).
        """
        for step in steps:
            # The counters and banks as they stood when the step was written, before what it caused (the record).
            for state, clock, counters, bank in zip(self.seats, self._clocks, step["c"], step["b"], strict=True):
                state.timeouts, state.rejected, state.disconnects, state.defaults = counters
                clock.bank = bank
            kind = step["k"]
            if kind == "start" and self.status is TableStatus.WAITING:
                for state, name in zip(self.seats, step["names"], strict=True):
                    state.name, state.joined = name, True
                self._start()
                self.started_at = step["at"]
            elif kind == "play":
                p = self._pending
                if p is None or (p.decision_id, p.seat) != (step["d"], step["s"]):
                    raise ValueError(f"journal step {step} does not answer the pending decision")
                noted = step.get("n")
                self._play(p, action_from_json(step["a"]), _default_of(step["t"]),
                           annotation=None if noted is None else Annotation.from_json(noted))
            elif kind == "joined":
                self.seats[step["s"]].name = step["name"]
                self._publish_all(SeatJoined(seat=step["s"], name=step["name"], rejoined=step["r"]))
            elif kind == "left":
                self._publish_all(SeatDisconnected(seat=step["s"], grace_until=step["g"]))
            elif kind == "abort":
                self.abort(step["reason"])
            else:
                raise ValueError(f"journal step {step} does not fit a {self.status.value} table")
        if self.status is TableStatus.RUNNING:
            for state in self.seats:
                state.grace = self._loop.call_later(self.time_control.grace_seconds, self._grace_expired, state.seat)
        self.log.info("table resumed", steps=len(steps), status=self.status.value, actions=self._actions)

    def suspend(self) -> None:
        """Freeze the table for a restart: no more steps, timeouts, presence events or moves in this process.

        The journal holds it as it stands; the next start resumes it. Answers
        that still arrive are refused (``STALE_DECISION``: answer again after
        rejoining).
        """
        if self.is_over or self.suspended:
            return
        self.suspended = True
        self.journal = None
        for timer in (self._join_timer, self._deadline_timer, *(s.grace for s in self.seats)):
            if timer is not None:
                timer.cancel()
        self.log.info("table suspended for a restart", actions=self._actions)
        self._notify()  # its followers end their streams with UNAVAILABLE

    def discard(self) -> None:
        """Let go of a table that was never handed out (its creation failed): its join timer stops."""
        if self._join_timer is not None:
            self._join_timer.cancel()
            self._join_timer = None

    # --- ending ----------------------------------------------------------

    def abort(self, reason: str) -> None:
        """End the table now as aborted with ``reason`` (no-op once over)."""
        if self.is_over:
            return
        self._write_step({"k": "abort", "reason": reason})
        self.log.warning("table aborted", reason=reason)
        try:
            self.match = self.match.abort(reason)
        except Exception:  # the engine's abort must not keep a table open
            self.log.exception("engine abort failed")
        self._end(aborted_reason=reason)

    def _end(self, aborted_reason: str | None = None) -> None:
        if self.is_over:
            return
        result = self.match.result
        aborted = aborted_reason is not None or result is None or result.status != "finished"
        self.status = TableStatus.ABORTED if aborted else TableStatus.FINISHED
        self.ended_at = time.time()
        for timer in (self._join_timer, self._deadline_timer, *(s.grace for s in self.seats)):
            if timer is not None:
                timer.cancel()
        self._join_timer = None
        self._pending = None
        self.record = self._build_record()
        journal = self.journal
        self.end_held = journal is not None and not journal.settled(self._release_end)
        if not self.end_held and result is not None:
            self._publish_all(TableEnded(result=result))
        self.log.info("table ended", status=self.status.value,
                      reason=result.reason if result else aborted_reason, actions=self._actions, held=self.end_held)
        self._notify()
        self.ended.set()
        if self._on_end is not None:
            try:
                self._on_end(self)
            except Exception:
                self.log.exception("on_end callback failed")

    def _release_end(self) -> None:
        """Send the held end: the journal no longer holds a part of this table a restart could resume."""
        if not self.end_held:
            return
        self.end_held = False
        result = self.match.result
        if result is not None:
            self._publish_all(TableEnded(result=result))
        self.log.info("held table end sent")
        self._notify()

    def _build_record(self) -> dict[str, Any]:
        try:
            record = self.match.to_record(seed=self._seed, names=self.names)
        except Exception as error:  # never lose the fact that the table ended
            self.log.exception("record assembly failed")
            record = {"format": "tricktable-record/1", "game": self.game, "options": self.options,
                      "seed": self._seed, "error": f"record assembly failed: {error}"}
        # The commitment and what opens it (rules.verify checks them), and whether the creator chose the seed.
        record.update(seed_sha256=self.seed_sha256, salt=self.salt, seed_chosen=self.seed_chosen)
        for entry in record.get("seats", []):
            entry.update(self.seats[entry["seat"]].counters())
        try:
            annotate_record(record, self._annotations)  # the table is over: the bots' notes may be read now
        except ValueError:  # a record without its notes rather than none
            self.log.exception("annotations do not fit the record")
        return record

    def _guard(self, step: Callable[..., None], *args: Any) -> None:
        """Run a state step, then wake the followers; an unexpected error aborts this table instead of escaping."""
        try:
            step(*args)
        except Exception as error:
            self.log.exception("table step failed", step=getattr(step, "__name__", "?"))
            self.abort(f"internal error: {type(error).__name__}: {error}")
        finally:
            self._notify()

    # --- logs ------------------------------------------------------------

    def _audiences(self) -> list[Audience]:
        return [*range(self.players), None]

    def _log(self, audience: Audience) -> list[Event]:
        return self._logs[self.players if audience is None else audience]

    def _publish(self, audience: Audience, body: EventBody) -> None:
        """Append to one log; the step that publishes wakes the followers when it is done (:meth:`_notify`)."""
        log = self._log(audience)
        log.append(Event(len(log) + 1, time.time(), body))

    def _publish_all(self, body: EventBody) -> None:
        now = time.time()
        shared: Event | None = None
        for log in self._logs:
            shared = _entry(log, now, body, shared)

    def _notify(self) -> None:
        """Wake the followers waiting for news, the seat to act first: its decision is the critical path of a move.

        A follower that is not waiting looks before it waits (nothing is missed); a quiet one (a coalescing
        follower holding a batch) is woken only for its seat's decision or the table's end.
        """
        p = self._pending
        if p is not None and not self._wakers[p.seat].is_set():
            self._wakers[p.seat].set()
        everyone = self.is_over or self.suspended
        for waker, eager in zip(self._wakers, self._eager, strict=True):
            if (eager or everyone) and not waker.is_set():
                waker.set()


def _entry(log: list[Event], now: float, body: EventBody, shared: Event | None) -> Event:
    """Append ``body`` to ``log`` at ``now``: as the entry ``shared`` when it is that body at this place in the log.

    Why shared: a public event is one body for every audience, and every log
    has it at the same place, so one entry object serves them all and the
    streams convert it once (:func:`tricktable.server.wire.event_to_proto`).
    """
    seq = len(log) + 1
    entry = shared if shared is not None and shared.body is body and shared.seq == seq else Event(seq, now, body)
    log.append(entry)
    return entry


def _default_of(journaled: object) -> DefaultReason | None:
    """A journal step's default reason (a bool in journals written before the away rule: True was a timeout)."""
    if isinstance(journaled, str):
        return DefaultReason(journaled)
    return DefaultReason.TIMEOUT if journaled else None
