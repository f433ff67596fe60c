"""Raw protocol clients for server tests (no SDK: the server is tested against the wire itself)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

#: Picks the answer to a decision request; None leaves it unanswered (a silent seat).
Chooser = Callable[[pb.DecisionRequest], pb.Decide | None]


def discard(decision: pb.DecisionRequest, cards: list[str]) -> pb.Decide:
    """A discard of ``cards`` named by its notation (``cards`` as given), the answer to a ``DiscardChoice``."""
    return pb.Decide(decision_id=decision.decision_id, action_id="-".join(["discard", *cards]))


def discard_action(decision: pb.DecisionRequest, cards: list[str]) -> pb.Decide:
    """A discard of ``cards`` as an ``Action`` message: the deprecated form, still accepted from v1 clients."""
    answer = pb.Decide(decision_id=decision.decision_id)
    answer.action.discard.cards.extend(cards)
    return answer


def some_discard(decision: pb.DecisionRequest, rng: Any) -> pb.Decide:
    """A random discard of the choice, its cards in the choice's order (the one notation of that discard)."""
    offered = list(decision.discard_choice.cards)
    chosen = set(rng.sample(offered, decision.discard_choice.count))
    return discard(decision, [card for card in offered if card in chosen])


def first_legal(decision: pb.DecisionRequest) -> pb.Decide:
    if decision.HasField("discard_choice"):
        return discard(decision, list(decision.discard_choice.cards[:decision.discard_choice.count]))
    return pb.Decide(decision_id=decision.decision_id, action=decision.legal_actions[0].action)


def by_id(rng: Any) -> Chooser:
    def choose(decision: pb.DecisionRequest) -> pb.Decide:
        if decision.HasField("discard_choice"):
            return some_discard(decision, rng)
        pick = rng.choice(list(decision.legal_actions))
        return pb.Decide(decision_id=decision.decision_id, action_id=pick.id)
    return choose


async def create(stub: Any, game: str, *, players: int | None = None, seed: str | None = None,
                 decision_ms: int | None = None, bank_ms: int | None = None,
                 names: list[str] | None = None, options: dict[str, Any] | None = None) -> pb.CreateTableResponse:
    """CreateTable over the wire; ``options`` as the rules name them (``players`` is a shorthand)."""
    options = dict(options or {})
    if players is not None:
        options["players"] = players
    request = pb.CreateTableRequest(game=convert.game_to_proto(game),
                                    options=convert.options_to_proto(game, options), seat_names=names or [])
    if seed is not None:
        request.seed = seed
    if decision_ms is not None:
        request.time_control.decision_ms = decision_ms
    if bank_ms is not None:
        request.time_control.bank_ms = bank_ms
    response: pb.CreateTableResponse = await stub.CreateTable(request)
    return response


@dataclass
class SeatRun:
    """What one Play stream received."""

    responses: list[pb.PlayResponse] = field(default_factory=list)

    def of(self, kind: str) -> list[Any]:
        return [getattr(r, kind) for r in self.responses if r.WhichOneof("kind") == kind]

    @property
    def events(self) -> list[Any]:
        return self.of("event")


class PlaySeat:
    """One bidirectional Play stream, driven by a chooser; answers every decision request."""

    def __init__(self, stub: Any, token: str, *, name: str = "", choose: Chooser = first_legal,
                 last_seen: int | None = None, enumerate_discards: bool = False,
                 legal_actions_once: bool = False) -> None:
        self.stub = stub
        self.token = token
        self.name = name
        self.enumerate_discards = enumerate_discards
        self.legal_actions_once = legal_actions_once
        self.choose = choose
        self.last_seen = last_seen
        self.outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        self.run = SeatRun()
        self._arrived = asyncio.Event()
        self._cursor: dict[str, int] = {}

    async def _requests(self) -> AsyncIterator[pb.PlayRequest]:
        join = pb.Join(token=self.token, name=self.name, enumerate_discards=self.enumerate_discards,
                       legal_actions_once=self.legal_actions_once)
        if self.last_seen is not None:
            join.last_seen_sequence = self.last_seen
        yield pb.PlayRequest(join=join)
        while (request := await self.outbox.get()) is not None:
            yield request

    async def next(self, kind: str, timeout: float = 10.0) -> Any:
        """The next response of ``kind`` not yet returned by this method (waits for it)."""
        async def wait() -> Any:
            while True:
                start = self._cursor.get(kind, 0)
                for i in range(start, len(self.run.responses)):
                    response = self.run.responses[i]
                    if response.WhichOneof("kind") == kind:
                        self._cursor[kind] = i + 1
                        return getattr(response, kind)
                self._cursor[kind] = len(self.run.responses)
                self._arrived.clear()
                await self._arrived.wait()
        return await asyncio.wait_for(wait(), timeout)

    def send(self, request: pb.PlayRequest) -> None:
        self.outbox.put_nowait(request)

    async def play(self, *, stop: Callable[[pb.PlayResponse], bool] | None = None,
                   answer: bool = True) -> SeatRun:
        """Play until the server ends the stream (or ``stop`` says so after a response)."""
        call = self.stub.Play(self._requests())
        try:
            async for response in call:
                self.run.responses.append(response)
                self._arrived.set()
                if stop is not None and stop(response):
                    break
                if answer and response.WhichOneof("kind") == "decision":
                    decide = self.choose(response.decision)
                    if decide is not None:
                        self.send(pb.PlayRequest(decide=decide))
        finally:
            self.outbox.put_nowait(None)
            call.cancel()
        return self.run


async def spectate(stub: Any, table_id: str) -> list[pb.SpectateResponse]:
    return [r async for r in stub.Spectate(pb.SpectateRequest(table_id=table_id))]


def result_of(run: SeatRun) -> game_pb2.Result | None:
    for event in run.events:
        if event.WhichOneof("kind") == "game_ended":
            result: game_pb2.Result = event.game_ended.result
            return result
    return None


@dataclass
class ManyRun:
    """What one PlayMany call received: each conversation's messages and closes, and the call's own messages."""

    seats: dict[int, SeatRun] = field(default_factory=dict)
    closed: dict[int, list[pb.SeatClosed]] = field(default_factory=dict)
    messages: list[pb.PlayManyResponse] = field(default_factory=list)

    def seat(self, stream: int) -> SeatRun:
        return self.seats.setdefault(stream, SeatRun())


class PlayMany:
    """One PlayMany call carrying several seats' conversations; every decision answered by ``choose``.

    What is ready for several seats is answered in one message, as a client running many bots would.
    """

    def __init__(self, stub: Any, choose: Chooser = first_legal) -> None:
        self.call = stub.PlayMany()
        self.choose = choose
        self.run = ManyRun()
        #: Numbers left and not joined again: their decisions still arriving are not answered.
        self.left: set[int] = set()

    async def send(self, *requests: tuple[int, pb.PlayRequest]) -> None:
        await self.call.write(pb.PlayManyRequest(
            requests=[pb.SeatPlayRequest(stream=n, request=r) for n, r in requests]))

    async def leave(self, *numbers: int) -> None:
        """Leave each numbered conversation, in one message."""
        self.left.update(numbers)
        await self.call.write(pb.PlayManyRequest(requests=[pb.SeatPlayRequest(stream=n, leave=True) for n in numbers]))

    async def join(self, tokens: dict[int, str], **options: Any) -> None:
        """Open one conversation per stream number, each with its token's join, in one message."""
        self.left.difference_update(tokens)
        await self.send(*((n, pb.PlayRequest(join=pb.Join(token=t, **options))) for n, t in tokens.items()))

    async def play(self, streams: int = 0, *, until: int | None = None, answer: bool = True) -> ManyRun:
        """Read (answering decisions) until ``streams`` conversations have closed, or the one numbered ``until``."""
        closed = 0
        closed_now: set[int] = set()
        while (closed < streams) if until is None else until not in closed_now:
            message = await asyncio.wait_for(self.call.read(), 30)
            assert isinstance(message, pb.PlayManyResponse), message
            self.run.messages.append(message)
            answers: list[tuple[int, pb.PlayRequest]] = []
            for entry in message.responses:
                if entry.WhichOneof("kind") == "closed":
                    self.run.closed.setdefault(entry.stream, []).append(entry.closed)
                    closed += 1
                    closed_now.add(entry.stream)
                    continue
                self.run.seat(entry.stream).responses.append(entry.response)
                items = (entry.response.batch.messages if entry.response.WhichOneof("kind") == "batch"
                         else [entry.response])
                for item in items:
                    if answer and item.WhichOneof("kind") == "decision" and entry.stream not in self.left:
                        decide = self.choose(item.decision)
                        if decide is not None:
                            answers.append((entry.stream, pb.PlayRequest(decide=decide)))
            if answers:
                await self.send(*answers)
        return self.run

    async def joined(self, count: int) -> None:
        """Read until ``count`` conversations have joined (answering nothing)."""
        while count > 0:
            message = await asyncio.wait_for(self.call.read(), 30)
            count -= sum(e.response.WhichOneof("kind") == "joined" for e in message.responses)

    def cancel(self) -> None:
        self.call.cancel()


def comparable(message: pb.PlayResponse) -> tuple[str, bytes] | None:
    """Events after the start (their time cleared) and decisions (id, legal action ids, view); None for the rest.

    The start (sequences 1 and 2) is an event only for the seats that joined before the last one.
    """
    kind = message.WhichOneof("kind")
    if kind == "event" and message.event.sequence > 2:
        event = pb.PlayResponse().event
        event.CopyFrom(message.event)
        event.time_unix_ms = 0
        return kind, event.SerializeToString(deterministic=True)
    if kind == "decision":
        d = message.decision
        ids = ",".join(a.id for a in d.legal_actions).encode()
        return kind, d.decision_id.encode() + b"|" + ids + b"|" + d.view.SerializeToString(deterministic=True)
    return None
