"""Run a bot at a table: connect, join, play until the game ends, reconnect and resume.

The bot implements one method (:class:`tricktable.client_sdk.bot.Bot`); this module owns
the rest, like lichess-bot's runner:

- joins a seat with its token over the bidirectional ``Play`` stream, opted in
  to batches and coalesced events (information rides with the next decision);
- answers each decision request with the decision id, sending the chosen
  action's stable id when it is one of the legal actions (the action itself
  otherwise, so the server can say why it is wrong);
- on an in-band rejection, logs it, asks the bot again once, then falls back
  to the first legal action, so a buggy bot never stalls a table; a bot that
  raises or returns something that is not an action gets the same fallback;
- fails at once when the first connection fails (:class:`ServerUnreachable`):
  reconnecting is for connections that worked;
- on a dropped connection (or a retryable status), reconnects with
  exponential backoff and jitter and rejoins with the last event sequence
  seen, which resumes the seat where it was (full view, pending decision);
- a unary call the server refuses for its rate (``RATE_LIMITED``) is made
  again once the server's hint has passed (:func:`with_rate_retries`), on
  the same connection: the seat keeps its stream;
- returns the game's :class:`tricktable.rules.game.Result`, or raises a typed
  :class:`tricktable.client_sdk.errors.SdkError`.

``run_bot`` and ``seek_and_run`` are blocking wrappers around the ``*_async``
coroutines for scripts; use the coroutines inside an event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import grpc

from tricktable.client_sdk.bot import (
    Bot,
    BotFault,
    DecisionInfo,
    ask_awaitable,
    choose_now,
    is_pending,
    not_an_action,
    split_choice,
)
from tricktable.client_sdk.errors import (
    RETRY_WITH_BACKOFF,
    ConnectionLost,
    ProtocolError,
    SdkError,
    ServerUnreachable,
    error_from_rpc,
    retry_after_of,
)
from tricktable.client_sdk.lazy_view import KeptHistory, view_on_read
from tricktable.protocol import convert
from tricktable.protocol.channel_options import CONNECT_ATTEMPT_SECONDS, RECONNECT_OPTIONS
from tricktable.protocol.generated.tricktable.v1 import events_pb2, table_service_pb2, table_service_pb2_grpc
from tricktable.protocol.stream import next_reply
from tricktable.rules.actions import Action, describe
from tricktable.rules.annotation import Annotation
from tricktable.rules.errors import TricktableError
from tricktable.rules.game import Result, SeatView

log = logging.getLogger("tricktable.sdk")

T = TypeVar("T")


#: Default limit on gRPC message size (both ways); views are a few kilobytes.
MAX_MESSAGE_BYTES = 4 * 1024 * 1024

#: Seconds the first connection to a server may take before the SDK gives up on it (as long as gRPC gives
#: one connection attempt: a slow handshake is an answer, only a failed one is "no server there").
CONNECT_TIMEOUT_SECONDS = CONNECT_ATTEMPT_SECONDS


@dataclass(frozen=True, slots=True, kw_only=True)
class Backoff:
    """Reconnect schedule: ``initial`` seconds, times ``factor`` per failed attempt, capped at ``maximum``.

    ``attempts`` failed attempts in a row (without a successful join between
    them) give up with :class:`ConnectionLost`. Each delay gets up to
    ``jitter`` of itself added at random so that many bots do not reconnect in step.
    The defaults keep trying for at least :meth:`patience` (36.3 s), so a seat
    rides out a server restart (docs/protocol.md, "Across a server restart").
    """

    initial: float = 0.1
    factor: float = 2.0
    maximum: float = 5.0
    attempts: int = 12
    jitter: float = 0.2

    def patience(self) -> float:
        """Seconds of waiting, at the least (no jitter), before the schedule gives up."""
        return sum(min(self.maximum, self.initial * self.factor ** (n - 1)) for n in range(1, self.attempts + 1))

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before reconnect attempt ``attempt`` (1-based)."""
        base = min(self.maximum, self.initial * self.factor ** max(0, attempt - 1))
        return base * (1.0 + self.jitter * rng.random())


#: Calls again at most after a ``RATE_LIMITED`` refusal, each after the wait the server named.
RATE_LIMIT_RETRIES = 8
#: The longest wait the SDK takes on a ``RATE_LIMITED`` hint: a longer hint is raised at once
#: (:class:`~tricktable.client_sdk.errors.LimitExceeded`, its ``retry_after``) for the caller to decide.
RATE_LIMIT_LONGEST_WAIT_S = 30.0
#: Each wait gets up to this share of itself added at random, so clients refused together do not call in step.
RATE_LIMIT_JITTER = 0.2
#: The least wait after a refusal, whatever the hint: a retry never spins.
RATE_LIMIT_LEAST_WAIT_S = 0.01
_jitter = random.Random()


async def with_rate_retries(call: Callable[[], Awaitable[T]], what: str) -> T:
    """``call()``, made again after each ``RATE_LIMITED`` refusal once the server's hint has passed.

    Why here and not in the reconnect schedule: a rate-limited call says when it may come back
    (``tricktable-retry-after-ms``), and nothing is wrong with the connection, so a seat keeps its
    stream. Each wait is the hint (at least :data:`RATE_LIMIT_LEAST_WAIT_S`) plus up to
    :data:`RATE_LIMIT_JITTER` of it; at most :data:`RATE_LIMIT_RETRIES` calls again.

    Raises:
        grpc.aio.AioRpcError: any other failure; a refusal whose hint is past :data:`RATE_LIMIT_LONGEST_WAIT_S`
            (at once), or the last refusal once the retries are spent.
    """
    attempt = 0
    while True:
        try:
            return await call()
        except grpc.aio.AioRpcError as exc:
            hint = retry_after_of(exc)
            attempt += 1
            if hint is None or hint > RATE_LIMIT_LONGEST_WAIT_S or attempt > RATE_LIMIT_RETRIES:
                raise
        wait = max(hint, RATE_LIMIT_LEAST_WAIT_S) * (1.0 + RATE_LIMIT_JITTER * _jitter.random())
        log.warning("%s refused by the server's call rate; calling again in %.3fs (retry %d of %d)", what, wait,
                    attempt, RATE_LIMIT_RETRIES)
        await asyncio.sleep(wait)


@dataclass(slots=True)
class SeatSession:
    """What the runner knows of its seat; kept across reconnects (the resume point)."""

    token: str
    name: str = ""
    table_id: str = ""
    seat: int | None = None
    last_sequence: int | None = None
    view: SeatView | None = None
    result: Result | None = None
    #: Decision ids already answered and accepted (a re-sent request after a rejoin is answered again).
    accepted: set[str] = field(default_factory=set)
    rejections: int = 0
    reconnects: int = 0
    joins: int = 0


@dataclass(slots=True)
class _Pending:
    """A decision asked of this seat and not yet accepted."""

    view: SeatView
    #: The enumerated legal actions by id (empty for a discard offered as a DiscardChoice: answered with an Action).
    legal: dict[str, Action]
    last_action: Action | None = None
    reasks: int = 0
    #: Seconds an asynchronous bot may think before the runner answers for it (None: no clock).
    limit: float | None = None
    info: DecisionInfo | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CreatedTable:
    """What CreateTable returns: the table id, one token per seat (seat order), the seed's commitment
    and the creator's owner token (reads the record and spectates while they are withheld)."""

    table_id: str
    tokens: tuple[str, ...]
    seed_sha256: str
    owner_token: str = ""
    #: Where to play the table (its shard: :func:`play_target`); empty: the address it was created at.
    play_address: str = ""


#: Bind addresses that name no host a client can dial.
_WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", "[::]", ""})


def play_target(address: str, play_address: str) -> str:
    """Where to open a table's streams: its ``play_address`` (a shard), else ``address`` (the one used).

    A server bound to every interface announces a wildcard host (``0.0.0.0:PORT``): the port is kept with
    the host of ``address``, which this client could reach.
    """
    if not play_address:
        return address
    host, _, port = play_address.rpartition(":")
    if host in _WILDCARD_HOSTS:
        return f"{address.rpartition(':')[0]}:{port}"
    return play_address


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayedSeat:
    """A game played through the runner: its result, and where and how this bot played it."""

    result: Result
    table_id: str
    seat: int
    #: The side of ``seat`` (an index of ``result.winners`` and ``result.scores``).
    side: int
    rejections: int = 0
    reconnects: int = 0

    @property
    def won(self) -> bool:
        """This bot's side is among the winners of a finished game."""
        return self.result.status == "finished" and self.side in self.result.winners


async def connect(channel: grpc.aio.Channel, address: str, *, wait_for_server: float = 0.0,
                  timeout: float = CONNECT_TIMEOUT_SECONDS) -> None:
    """Wait until ``channel`` is connected; fail at the first failed attempt, or after ``wait_for_server`` seconds.

    Why: a wrong address or a server that is not running should be an error
    in a moment, not after every reconnect attempt (those are for connections
    that worked and dropped). A script that starts the server and its bots
    together gives the server ``wait_for_server`` seconds to come up.

    Raises:
        ServerUnreachable: the connection failed (after ``wait_for_server`` seconds), or did not succeed
            within ``timeout`` seconds (or ``wait_for_server``, if longer).
    """
    loop = asyncio.get_running_loop()
    started = loop.time()
    give_up = started + max(timeout, wait_for_server)
    state = channel.get_state(try_to_connect=True)
    while state is not grpc.ChannelConnectivity.READY:
        failed = state in (grpc.ChannelConnectivity.TRANSIENT_FAILURE, grpc.ChannelConnectivity.SHUTDOWN)
        if failed and loop.time() - started >= wait_for_server:
            raise ServerUnreachable(f"cannot connect to {address}: is a tricktable server running there?")
        left = give_up - loop.time()
        if left <= 0:
            raise ServerUnreachable(f"cannot connect to {address}: no answer within {give_up - started:g} s")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(channel.wait_for_state_change(state), min(left, 0.5) if failed else left)
        state = channel.get_state(try_to_connect=True)


def open_channel(address: str, *, root_certificates: bytes | None = None) -> grpc.aio.Channel:
    """An asyncio gRPC channel to ``address`` (``host:port``): TLS when root certificates are given.

    Why a helper: every entry point uses the same message size limits, keepalive and connection attempts
    (:mod:`tricktable.protocol.channel_options`).
    """
    options = [
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.keepalive_time_ms", 20_000),
        # A returning server is seen within a second; a slow handshake is waited for (the module's text).
        *RECONNECT_OPTIONS,
        # A channel of its own subchannels: a fresh channel made to reconnect does not inherit another
        # channel's failed connection (the global pool shares them, with their backoff).
        ("grpc.use_local_subchannel_pool", 1),
    ]
    if root_certificates is not None:
        return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(root_certificates), options=options)
    return grpc.aio.insecure_channel(address, options=options)


async def play_seat_async(
    bot: Bot,
    address: str,
    *,
    token: str,
    name: str = "",
    backoff: Backoff | None = None,
    root_certificates: bytes | None = None,
    wait_for_server: float = 0.0,
    max_reasks: int = 1,
    seed: int | None = None,
    transport: str = "play",
) -> PlayedSeat:
    """Play the seat of ``token`` at the server at ``address`` with ``bot`` until the game ends.

    What :func:`run_bot_async` does (see there), returning where the bot sat
    and how its side did (:class:`PlayedSeat`) besides the result.

    Returns:
        The game's result (finished, or aborted with the server's reason), the table, seat and side.

    Raises:
        JoinRejected: the token is not valid.
        TableNotFound: the table does not exist (any more).
        TableNotPlayable: the table cannot be joined (cancelled before the join).
        ServerUnreachable: the first connection failed (nothing to resume).
        ConnectionLost: the server stayed unreachable through every retry.
        SdkError: any other non-retryable status.
        ValueError: for an unknown ``transport``.
    """
    if transport not in ("play", "watch"):
        raise ValueError(f"transport must be 'play' or 'watch', not {transport!r}")
    session = SeatSession(token=token, name=name)
    channel = open_channel(address, root_certificates=root_certificates)

    async def attempt() -> Result | None:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        if transport == "watch":
            return await _watch_once(stub, bot, session, max_reasks=max_reasks)
        return await play_stream(stub.Play(), bot, session,  # type: ignore[call-arg]  # grpc-stubs: we write
                                max_reasks=max_reasks)

    async def refresh() -> None:
        # A channel stuck in a bad state is replaced now and then.
        nonlocal channel
        await channel.close(None)
        channel = open_channel(address, root_certificates=root_certificates)

    try:
        await connect(channel, address, wait_for_server=wait_for_server)
        return await play_with_reconnects(bot, session, attempt, refresh, backoff=backoff, seed=seed)
    finally:
        await channel.close(None)


async def play_with_reconnects(bot: Bot, session: SeatSession, attempt: Callable[[], Awaitable[Result | None]],
                               refresh: Callable[[], Awaitable[None]], *, backoff: Backoff | None = None,
                               seed: int | None = None) -> PlayedSeat:
    """Run ``attempt`` (one stream of the seat: join or rejoin, play) until the game ends, reconnecting with backoff.

    The one reconnect policy of every transport (a Play stream, Watch, a conversation on PlayMany): an
    attempt that ends without the game's end, or fails with a status of :data:`RETRY_WITH_BACKOFF`, is
    tried again after ``backoff``'s delay (the schedule starts again after an attempt that joined); any
    other status is raised as its :class:`SdkError`. ``refresh`` is called after every third failure in a row.

    Raises:
        ConnectionLost: the attempts kept failing through the whole schedule (or the type of the last error).
        SdkError: a status after which reconnecting can not help.
    """
    schedule = backoff or Backoff()
    rng = random.Random(seed)
    failures = 0
    while True:
        joins_before = session.joins
        try:
            done = await attempt()
            if done is not None:
                _tell_game_end(bot, done)
                return _played(session, done)
            error: SdkError = ConnectionLost("the server closed the stream before the game ended")
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in RETRY_WITH_BACKOFF:
                raise error_from_rpc(exc) from None
            error = error_from_rpc(exc)
        if session.joins > joins_before:
            failures = 0  # the last attempt joined: start the schedule again
        failures += 1
        if failures > schedule.attempts:
            raise type(error)(f"gave up after {schedule.attempts} reconnect attempts: {error.message}", error.code)
        wait = schedule.delay(failures, rng)
        session.reconnects += 1
        log.warning("connection lost (%s); reconnecting in %.2fs (attempt %d, last event %s)",
                    error.message, wait, failures, session.last_sequence)
        await asyncio.sleep(wait)
        if failures % 3 == 0:
            await refresh()


async def run_bot_async(
    bot: Bot,
    address: str,
    *,
    token: str,
    name: str = "",
    backoff: Backoff | None = None,
    root_certificates: bytes | None = None,
    wait_for_server: float = 0.0,
    max_reasks: int = 1,
    seed: int | None = None,
    transport: str = "play",
) -> Result:
    """Play the seat of ``token`` at the server at ``address`` with ``bot`` until the game ends.

    Fails at once when the first connection fails (:class:`ServerUnreachable`),
    unless ``wait_for_server`` seconds are given for a server still starting.
    Reconnects with ``backoff`` after a dropped connection and resumes from the
    last event seen. When the server refuses the bot's action, the bot is
    asked again up to ``max_reasks`` times, then the first legal action is
    sent. A bot that raises, or returns something that is not an action, gets
    the first legal action sent for it, with a warning naming its mistake. An
    asynchronous bot that overruns its clock (deadline plus bank, less
    a margin) gets the first legal action sent for it; a synchronous bot cannot
    be interrupted. ``transport`` is ``"play"`` (the bidirectional stream) or
    ``"watch"`` (server stream plus unary SubmitAction, for networks that do
    not carry bidirectional streams). ``seed`` seeds the backoff jitter (tests).

    Returns:
        The game's result (finished, or aborted with the server's reason).

    Raises:
        the errors of :func:`play_seat_async`.
    """
    played = await play_seat_async(bot, address, token=token, name=name, backoff=backoff,
                                   root_certificates=root_certificates, wait_for_server=wait_for_server,
                                   max_reasks=max_reasks, seed=seed, transport=transport)
    return played.result


def _played(session: SeatSession, result: Result) -> PlayedSeat:
    seat = session.seat if session.seat is not None else -1
    side = session.view.side_of(seat) if session.view is not None and seat >= 0 else -1
    return PlayedSeat(result=result, table_id=session.table_id, seat=seat, side=side,
                      rejections=session.rejections, reconnects=session.reconnects)


class _SeatLoop:
    """Handles one connection's server messages (Play or Watch: the same oneof) and sends decisions.

    ``send`` delivers a PlayRequest holding a Decide: written on the Play stream, or its Decide sent with
    SubmitAction on the Watch path (whose reply is fed back to :meth:`handle`).
    """

    def __init__(self, bot: Bot, session: SeatSession, send: Callable[[table_service_pb2.PlayRequest], Awaitable[None]],
                 *, max_reasks: int) -> None:
        self.bot = bot
        self.session = session
        self.send = send
        self.max_reasks = max_reasks
        self.pending: dict[str, _Pending] = {}
        #: The seat's history decoded so far: a decision's view decodes only its new entries.
        self.history = KeptHistory()

    async def handle(self, message: table_service_pb2.PlayResponse | table_service_pb2.WatchResponse) -> bool:
        """Handle one server message; True once the game has ended.

        Raises:
            ProtocolError: when the first message is not Joined, or a decision request is unusable.
        """
        session = self.session
        kind = message.WhichOneof("kind")
        if kind == "joined":
            _on_joined(session, message.joined)
            return session.result is not None
        if session.seat is None:
            raise ProtocolError(f"expected Joined as the first message, got {kind}")
        if kind == "batch" and isinstance(message, table_service_pb2.PlayResponse):
            # Several messages at once (Join.accept_batches), each handled in order, but the events and Accepted
            # recorded last: they are the seat's bookkeeping (its resume point, the game's end, its answered
            # decisions), nothing its bot is given, and a coalesced batch is the last answer's Accepted, the events
            # since, then the seat's next decision, which the bot gets without waiting for them.
            ended = False
            later: list[table_service_pb2.PlayResponse] = []
            try:
                for item in message.batch.messages:
                    which = item.WhichOneof("kind")
                    if which in _BOOKKEEPING:
                        later.append(item)
                    elif which == "decision":  # the usual last item: straight to it
                        await self._on_decision(item.decision)
                    else:
                        ended = await self.handle(item) or ended
            finally:
                for item in later:
                    if item.WhichOneof("kind") == "event":  # inline: a coalesced event costs no coroutine
                        ended = _on_event(session, item.event) or ended
                    else:
                        await self.on_accepted(item.accepted)
            return ended
        if kind == "event":
            return _on_event(session, message.event)
        if kind == "decision":
            await self._on_decision(message.decision)
        elif kind == "accepted":
            await self.on_accepted(message.accepted)
        elif kind == "rejection":
            await self.on_rejection(message.rejection)
        return False

    async def _on_decision(self, decision: table_service_pb2.DecisionRequest) -> None:
        """Decode a decision request (what the seat kept spares decoding again) and ask the bot.

        Raises:
            ProtocolError: for a request that does not decode or has no legal action.
        """
        session = self.session
        decision_id = decision.decision_id
        try:
            # The legal actions are the request's (the seat joined with legal_actions_once): the enumerated
            # ones with their ids, or a discard offered as a DiscardChoice, expanded into the bot's legal
            # actions (the bot answers with an Action then). A server that sends neither there leaves them to
            # the view.
            legal = convert.legal_actions_from_proto(decision.legal_actions)
            offered: tuple[Action, ...] | None = tuple(legal.values()) if legal else (
                convert.discard_choice_from_proto(decision.discard_choice)
                if decision.HasField("discard_choice") else None)
            wire = decision.view
            table = session.view  # the seat's last view: the table's options and sides, kept
            view = view_on_read(wire, options=None if table is None else table.options,
                                sides=None if table is None else table.sides, legal_actions=offered,
                                history=self.history)
            if offered is None:
                offered = view.legal_actions
        except (TricktableError, ValueError) as exc:
            raise ProtocolError(f"the server sent a decision request that does not decode: {exc}") from exc
        if not offered:
            raise ProtocolError(f"decision request {decision_id} has no legal action")
        session.view = view
        deadline, bank = decision.deadline_unix_ms, decision.time_bank_ms
        info = DecisionInfo(decision_id=decision_id, deadline_unix_ms=deadline, time_bank_ms=bank)
        entry = self.pending[decision_id] = _Pending(view=view, legal=legal, limit=_thinking_time(info),
                                                     info=info)
        await self._decide(decision_id, entry)

    async def on_accepted(self, accepted: table_service_pb2.Accepted) -> None:
        """A decision was played (or acknowledged again)."""
        self.session.accepted.add(accepted.decision_id)
        self.pending.pop(accepted.decision_id, None)

    async def on_rejection(self, rejection: table_service_pb2.Rejection) -> None:
        """Log; ask the bot again (``max_reasks`` times), then send the first legal action."""
        session = self.session
        session.rejections += 1
        reason = convert.rejection_reason_from_proto(rejection.reason)
        log.warning("decision %s rejected: %s (%s)", rejection.decision_id, reason, rejection.message)
        entry = self.pending.get(rejection.decision_id)
        if entry is None or reason == "STALE_DECISION":
            # Nothing of ours is pending under that id: a newer request will come.
            self.pending.pop(rejection.decision_id, None)
            return
        hook = getattr(self.bot, "on_rejection", None)
        if callable(hook):
            try:
                hook(entry.view, entry.last_action, reason, rejection.message)
            except Exception:
                log.exception("bot's on_rejection hook raised")
        entry.reasks += 1
        if entry.reasks <= self.max_reasks:
            await self._decide(rejection.decision_id, entry)
        elif entry.reasks == self.max_reasks + 1:
            first = entry.view.legal_actions[0]
            log.warning("bot's choices refused %d times; playing the first legal action %s", entry.reasks,
                        convert.action_id(first))
            entry.last_action = first
            await self.send(_decide_request(rejection.decision_id, first, entry.legal))
        # Else the fallback itself was refused: wait for the server's next request.

    async def _decide(self, decision_id: str, entry: _Pending) -> None:
        """Ask the bot and send its choice; a bot that raises, overruns or returns no action gets the first legal
        action sent for it."""
        annotation: Annotation | None = None
        try:
            choice = choose_now(self.bot, entry.view, entry.info)
            if is_pending(choice):
                limit = entry.limit
                choice = await (ask_awaitable(choice, entry.info) if limit is None
                                else asyncio.wait_for(ask_awaitable(choice, entry.info), limit))
            answer, annotation = split_choice(choice)
        except TimeoutError:
            log.warning("bot overran its clock on decision %s; playing the first legal action", decision_id)
            answer = entry.view.legal_actions[0]
        except BotFault as fault:  # the bot named its own fallback (an external program's default action)
            log.warning("bot fault on decision %s: %s; playing %s", decision_id, fault, describe(fault.fallback))
            answer = fault.fallback
        except Exception:  # a bot's bug must not lose the game on time
            log.exception("bot raised while choosing; playing the first legal action")
            answer = entry.view.legal_actions[0]
        if isinstance(answer, Action):
            action = answer
        else:
            action, annotation = entry.view.legal_actions[0], None
            log.warning("bot's choose_action %s; playing the first legal action (%s)", not_an_action(answer),
                        describe(action))
        entry.last_action = action
        await self.send(_decide_request(decision_id, action, entry.legal, annotation))


def _tell_game_end(bot: Bot, result: Result) -> None:
    """Call the bot's optional ``on_game_end(result)`` hook; a hook that raises is logged, not fatal."""
    hook = getattr(bot, "on_game_end", None)
    if callable(hook):
        try:
            hook(result)
        except Exception:
            log.exception("bot's on_game_end hook raised")


def _thinking_time(info: DecisionInfo) -> float | None:
    """Seconds an asynchronous bot may think: the decision's time left (bank included), less a network margin."""
    left = info.seconds_left()
    return None if left is None else max(0.05, left - 0.25)


class PlayCall(Protocol):
    """What the seat loop needs of a Play stream: a ``Play`` call, or one seat's conversation on ``PlayMany``."""

    async def write(self, request: table_service_pb2.PlayRequest) -> None:
        """Send a request (raises ``asyncio.InvalidStateError`` once the stream has ended)."""

    async def read(self) -> Any:
        """The next response, or ``grpc.aio.EOF`` at the end (raises ``grpc.aio.AioRpcError`` for a failed end)."""

    def cancel(self) -> bool:
        """Stop the stream (nothing more is read from it)."""


async def play_stream(
    call: PlayCall,
    bot: Bot,
    session: SeatSession,
    *,
    max_reasks: int,
) -> Result | None:
    """One Play stream (or PlayMany conversation): join, then handle messages until the game ends (result) or the
    stream ends (None)."""
    # Coalesced events: what is only for information comes with the next decision (one write per decision);
    # the legal actions once, in the decision request (the view's copies are deprecated).
    join = table_service_pb2.Join(token=session.token, name=session.name, accept_batches=True,
                                  coalesce_events=True, legal_actions_once=True)
    if session.last_sequence is not None:
        join.last_seen_sequence = session.last_sequence

    async def send(request: table_service_pb2.PlayRequest) -> None:
        try:
            await call.write(request)
        except asyncio.InvalidStateError:
            # The stream ended while the bot was thinking; the next read raises the status,
            # and after the rejoin the server asks again if the decision is still pending.
            log.info("stream ended before decision %s could be sent", request.decide.decision_id)

    loop = _SeatLoop(bot, session, send, max_reasks=max_reasks)
    try:
        with contextlib.suppress(asyncio.InvalidStateError):  # the call already failed: the read raises why
            await call.write(table_service_pb2.PlayRequest(join=join))
        while True:
            message = await next_reply(call, table_service_pb2.PlayResponse)
            if message is None:
                return session.result
            if await loop.handle(message):
                return session.result
    finally:
        call.cancel()


async def _watch_once(
    stub: table_service_pb2_grpc.TableServiceAsyncStub,
    bot: Bot,
    session: SeatSession,
    *,
    max_reasks: int,
) -> Result | None:
    """One Watch stream plus unary SubmitAction: the path for clients without bidirectional streams."""
    request = table_service_pb2.WatchRequest(token=session.token, name=session.name, legal_actions_once=True)
    if session.last_sequence is not None:
        request.last_seen_sequence = session.last_sequence
    call = stub.Watch(request)
    loop: _SeatLoop

    async def send(request: table_service_pb2.PlayRequest) -> None:
        submit = table_service_pb2.SubmitActionRequest(token=session.token, decide=request.decide)
        try:
            reply = await with_rate_retries(lambda: stub.SubmitAction(submit),
                                            f"the answer to decision {submit.decide.decision_id}")
        except grpc.aio.AioRpcError as exc:
            if retry_after_of(exc) is None:
                raise  # the connection or the token: the Watch stream's end says which, and the seat rejoins
            # Still refused: the seat keeps its stream; the server plays its default when the decision's time
            # runs out, and asks the next decision as usual.
            log.warning("the answer to decision %s was not sent: %s", submit.decide.decision_id,
                        error_from_rpc(exc).message)
            return
        if reply.WhichOneof("outcome") == "accepted":
            await loop.on_accepted(reply.accepted)
        elif reply.WhichOneof("outcome") == "rejection":
            await loop.on_rejection(reply.rejection)

    loop = _SeatLoop(bot, session, send, max_reasks=max_reasks)
    try:
        async for message in call:
            if await loop.handle(message):
                return session.result
        return session.result
    finally:
        call.cancel()


def _on_joined(session: SeatSession, joined: table_service_pb2.Joined) -> None:
    session.table_id = joined.table_id
    session.seat = joined.seat
    session.joins += 1
    session.view = convert.view_from_proto(joined.view)
    if session.last_sequence is None:
        # A first join: events up to joined.sequence are in the view; later ones follow.
        # (On a rejoin the server replays the events after our last sequence.)
        session.last_sequence = joined.sequence
    if session.view.result is not None:
        session.result = session.view.result
    log.info("joined table %s as seat %d (sequence %d)", joined.table_id, joined.seat, joined.sequence)


#: The messages of a batch that only update the seat's session (recorded after a decision in the same batch).
_BOOKKEEPING = frozenset({"event", "accepted"})


def _on_event(session: SeatSession, event: events_pb2.Event) -> bool:
    """Record one event in the seat's session; True once the game has ended."""
    sequence = event.sequence  # read once: each read of a message field is a call into protobuf
    last = session.last_sequence
    if last is None or sequence > last:
        if last is not None and sequence > last + 1:
            # The protocol promises every event after the last one seen; a gap is the server's bug.
            log.warning("events %d..%d never arrived", last + 1, sequence - 1)
        session.last_sequence = sequence
    if event.HasField("game_ended"):
        session.result = convert.result_from_proto(event.game_ended.result)
    return session.result is not None


def _decide_request(decision_id: str, action: Action, legal: Mapping[str, Action],
                    annotation: Annotation | None = None) -> table_service_pb2.PlayRequest:
    """A PlayRequest whose Decide names the action by its id (its notation; a discard's too) with the bot's note.

    Why the request and not the Decide: it is written on the path of every move, and a Decide built inside its
    request is not copied into it (a Watch client copies it into its SubmitAction request, off that path).
    """
    request = table_service_pb2.PlayRequest()
    decide = request.decide
    decide.decision_id = decision_id
    if annotation:
        decide.annotation.CopyFrom(convert.annotation_to_proto(annotation))
    for action_id, offered in legal.items():
        if offered is action:  # one of the view's own legal actions (the usual answer): its id without writing it
            decide.action_id = action_id
            return request
    decide.action_id = convert.action_id(action)
    return request


async def seek_async(
    address: str,
    *,
    game: str,
    players: int = 0,
    name: str = "",
    backoff: Backoff | None = None,
    root_certificates: bytes | None = None,
    wait_for_server: float = 0.0,
) -> table_service_pb2.SeekSeated:
    """Seek a game of ``game`` with ``players`` players (0: the game's default) and wait to be seated.

    Fails at once when the first connection fails (:class:`ServerUnreachable`),
    unless ``wait_for_server`` seconds are given for a server still starting;
    a seek the network drops later, before this client is seated, is made
    again with ``backoff``.

    Returns:
        The table id, seat and join token.

    Raises:
        InvalidRequest: unknown game or player count.
        LimitExceeded: the server holds too many seekers.
        ServerUnreachable: the first connection failed.
        ConnectionLost: the server stayed unreachable, or kept ending the seek, through every retry.
        SdkError: any other status.
    """
    schedule = backoff or Backoff()
    rng = random.Random()
    request = table_service_pb2.SeekGameRequest(game=convert.game_to_proto(game), players=players, name=name)
    channel = open_channel(address, root_certificates=root_certificates)
    try:
        await connect(channel, address, wait_for_server=wait_for_server)
        for attempt in range(1, schedule.attempts + 2):
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            try:
                async for update in stub.SeekGame(request):
                    if update.WhichOneof("kind") == "seated":
                        return update.seated
                    log.info("seeking %s: %d of %d waiting", game, update.waiting.waiting, update.waiting.needed)
                error: SdkError = ConnectionLost("the server ended the seek without seating this client")
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in RETRY_WITH_BACKOFF:
                    raise error_from_rpc(exc) from None
                error = error_from_rpc(exc)
            if attempt > schedule.attempts:
                raise type(error)(f"gave up seeking after {schedule.attempts} retries: {error.message}", error.code)
            wait = schedule.delay(attempt, rng)
            log.warning("seek interrupted (%s); seeking again in %.2fs", error.message, wait)
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")
    finally:
        await channel.close(None)


async def seek_and_run_async(
    bot: Bot,
    address: str,
    *,
    game: str,
    players: int = 0,
    name: str = "",
    backoff: Backoff | None = None,
    root_certificates: bytes | None = None,
    wait_for_server: float = 0.0,
) -> Result:
    """Seek a game, then play the seat given with ``bot`` (see :func:`run_bot_async`).

    Raises:
        the errors of :func:`seek_async` and :func:`run_bot_async`.
    """
    seated = await seek_async(address, game=game, players=players, name=name, backoff=backoff,
                              root_certificates=root_certificates, wait_for_server=wait_for_server)
    log.info("seated at table %s, seat %d", seated.table_id, seated.seat)
    return await run_bot_async(bot, play_target(address, seated.play_address), token=seated.token, name=name,
                               backoff=backoff, root_certificates=root_certificates)


def run_bot(bot: Bot, address: str, *, token: str, name: str = "", backoff: Backoff | None = None,
            root_certificates: bytes | None = None, wait_for_server: float = 0.0) -> Result:
    """Blocking :func:`run_bot_async` for scripts (starts its own event loop).

    Raises:
        the errors of :func:`run_bot_async`.
    """
    return asyncio.run(run_bot_async(bot, address, token=token, name=name, backoff=backoff,
                                     root_certificates=root_certificates, wait_for_server=wait_for_server))


def seek_and_run(bot: Bot, address: str, *, game: str, players: int = 0, name: str = "",
                 backoff: Backoff | None = None, root_certificates: bytes | None = None,
                 wait_for_server: float = 0.0) -> Result:
    """Blocking :func:`seek_and_run_async` for scripts (starts its own event loop).

    Raises:
        the errors of :func:`seek_and_run_async`.
    """
    return asyncio.run(seek_and_run_async(bot, address, game=game, players=players, name=name, backoff=backoff,
                                          root_certificates=root_certificates, wait_for_server=wait_for_server))


async def create_table(
    address: str,
    *,
    game: str,
    options: Mapping[str, Any] | None = None,
    decision_ms: int | None = None,
    bank_ms: int | None = None,
    seed: str | None = None,
    seat_names: Sequence[str] = (),
    root_certificates: bytes | None = None,
    sealed: bool = False,
    deck_set: tuple[int, int] | None = None,
    owner_token: str = "",
) -> CreatedTable:
    """Create a table of ``game`` and return its id and one join token per seat.

    ``sealed``: the record, spectating and progress are for the owner token only (tournaments: later
    tables may deal from the same seed); ``deck_set`` (tables dealt from the seed, this one's index):
    the seal lifts once a table of every index has ended. ``owner_token``: the creator's own credential
    (one for many tables); empty: the server draws one.

    Raises:
        InvalidRequest: bad game or options.
        LimitExceeded: the server holds too many tables, or kept refusing the call for its rate
            (:func:`with_rate_retries`; ``retry_after`` says how long it asked to wait).
        SdkError: any other status.
    """
    request = table_service_pb2.CreateTableRequest(
        game=convert.game_to_proto(game),
        options=convert.options_to_proto(game, options or {}),
        seat_names=list(seat_names),
        sealed=sealed,
        owner_token=owner_token,
    )
    if deck_set is not None:
        request.deck_set.tables, request.deck_set.index = deck_set
    if decision_ms is not None:
        request.time_control.decision_ms = decision_ms
    if bank_ms is not None:
        request.time_control.bank_ms = bank_ms
    if seed is not None:
        request.seed = seed
    channel = open_channel(address, root_certificates=root_certificates)
    stub = table_service_pb2_grpc.TableServiceStub(channel)
    try:
        response = await with_rate_retries(lambda: stub.CreateTable(request), "CreateTable")
    except grpc.aio.AioRpcError as exc:
        raise error_from_rpc(exc) from None
    finally:
        await channel.close(None)
    tokens = [t.token for t in sorted(response.seat_tokens, key=lambda t: t.seat)]
    return CreatedTable(table_id=response.table_id, tokens=tuple(tokens), seed_sha256=response.seed_sha256,
                        owner_token=response.owner_token, play_address=response.play_address)


async def get_record(address: str, table_id: str, *, root_certificates: bytes | None = None,
                     owner_token: str = "") -> str:
    """The record JSON (docs/records.md) of a finished or aborted table.

    ``owner_token`` (from :func:`create_table`) reads a record that is withheld from others.

    Raises:
        TableNotFound: no such table.
        TableNotPlayable: the table has not ended yet.
        PermissionDenied: the record is withheld (sealed, or a twin table is not over) and no owner token.
        LimitExceeded: the server kept refusing the call for its rate (:func:`with_rate_retries`).
        SdkError: any other status.
    """
    request = table_service_pb2.GetRecordRequest(table_id=table_id, owner_token=owner_token)
    channel = open_channel(address, root_certificates=root_certificates)
    stub = table_service_pb2_grpc.TableServiceStub(channel)
    try:
        response = await with_rate_retries(lambda: stub.GetRecord(request), "GetRecord")
    except grpc.aio.AioRpcError as exc:
        raise error_from_rpc(exc) from None
    finally:
        await channel.close(None)
    return response.record_json


async def spectate(
    address: str,
    table_id: str,
    *,
    last_seen_sequence: int | None = None,
    root_certificates: bytes | None = None,
    owner_token: str = "",
) -> AsyncIterator[table_service_pb2.SpectateResponse]:
    """Follow a table's public events: first a ``started`` message (public view), then each event.

    Ends when the server ends the stream (after GameEnded). A spectator never
    sees a hand, the stock, a buried card, the kitty, a discard or the seed.

    Raises:
        TableNotFound: no such table.
        SdkError: any other status.
    """
    request = table_service_pb2.SpectateRequest(table_id=table_id, owner_token=owner_token)
    if last_seen_sequence is not None:
        request.last_seen_sequence = last_seen_sequence
    channel = open_channel(address, root_certificates=root_certificates)
    try:
        async for message in table_service_pb2_grpc.TableServiceStub(channel).Spectate(request):
            yield message
    except grpc.aio.AioRpcError as exc:
        raise error_from_rpc(exc) from None
    finally:
        await channel.close(None)


async def list_tables(
    address: str,
    *,
    game: str | None = None,
    root_certificates: bytes | None = None,
) -> list[table_service_pb2.TableInfo]:
    """The server's tables (oldest first), of one game or all: id, game, status, seats, deal, scores, result.

    Raises:
        InvalidRequest: an unknown game.
        ServerUnreachable: nothing answers at ``address``.
        LimitExceeded: the server kept refusing the call for its rate (:func:`with_rate_retries`).
        SdkError: any other status.
    """
    request = table_service_pb2.ListTablesRequest()
    if game is not None:
        request.game = convert.game_to_proto(game)
    channel = open_channel(address, root_certificates=root_certificates)
    stub = table_service_pb2_grpc.TableServiceStub(channel)
    try:
        await connect(channel, address)
        response = await with_rate_retries(lambda: stub.ListTables(request), "ListTables")
    except grpc.aio.AioRpcError as exc:
        raise error_from_rpc(exc) from None
    finally:
        await channel.close(None)
    return list(response.tables)
