"""Server interceptors, one per concern: call rates, access log, error mapping, per-client stream limits.

Each wraps the handlers of our own service (``/tricktable.``); health and
reflection pass through untouched. Order on the server, outermost first:
call rates, access log, errors, stream limits, so a refusal by the stream
limit is both mapped and logged, and a call refused by its rate costs no
more than the refusal (it is counted in the metrics, and logged sampled:
a flood must not become a flood of log lines).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn

import grpc
import structlog

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.trailers import PUSHBACK_KEY, RETRY_AFTER_KEY
from tricktable.server.call_rate import CallRates, Refusal
from tricktable.server.errors import ForwardingRefusedError, ending_status, reason_metadata, status_for
from tricktable.server.forwarding import CLIENT_KEY, Forwarding, forwarded, forwarded_for, hop_value
from tricktable.server.metrics import Metrics
from tricktable.server.stream_guard import ClientStreams

log = structlog.get_logger("tricktable.rpc")

Context = grpc.aio.ServicerContext[Any, Any]
Unary = Callable[[Any, Context], Awaitable[Any]]
Streaming = Callable[[Any, Context], AsyncIterator[Any]]
OUR_PREFIX = "/tricktable."


def client_of(context: Context) -> str:
    """The client's address without its port: what per-client limits count.

    For a call another process of this server forwarded, the address of the client it forwarded it for (signed
    with the call: :mod:`tricktable.server.forwarding`), so per-client limits count clients, not the forwarder.
    """
    proxied = forwarded_for(context)
    if proxied:
        return proxied
    peer = context.peer() or ""
    host, _, _port = peer.rpartition(":")
    return host or peer


def connection_of(context: Context) -> str:
    """The client's connection (its address and port), or "" where connections are not told apart (a Unix socket)."""
    peer = context.peer() or ""
    return peer if peer.startswith(("ipv4:", "ipv6:")) else ""


def _rewrap(handler: Any, unary: Callable[[Unary], Unary], streaming: Callable[[Streaming], Streaming]) -> Any:
    """The same handler with its behaviour wrapped by ``unary`` or ``streaming`` (by response cardinality)."""
    kwargs = {"request_deserializer": handler.request_deserializer,
              "response_serializer": handler.response_serializer}
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary), **kwargs)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary), **kwargs)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(streaming(handler.unary_stream), **kwargs)
    return grpc.stream_stream_rpc_method_handler(streaming(handler.stream_stream), **kwargs)


class _Wrapping(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Base: wraps our service's handlers; subclasses give ``unary`` and ``streaming``.

    Each method's handler is wrapped once and the wrapped one kept for as
    long as the handler under it is the same object (it is: the server
    registers one handler a method): a call no longer builds three
    handlers and their closures, once per interceptor.
    """

    def __init__(self) -> None:
        #: Method -> the handler below this interceptor and its wrapped form.
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    async def intercept_service(
        self, continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or not method.startswith(OUR_PREFIX):
            return handler
        kept = self._wrapped.get(method)
        if kept is not None and kept[0] is handler:
            return kept[1]
        wrapped = _rewrap(handler, lambda f: self.unary(method, f), lambda f: self.streaming(method, f))
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    def unary(self, method: str, inner: Unary) -> Unary:
        raise NotImplementedError

    def streaming(self, method: str, inner: Streaming) -> Streaming:
        raise NotImplementedError


async def _abort_for(error: Exception, context: Context, method: str) -> None:
    if status_for(error) is None:
        log.exception("unexpected error", method=method)
    await context.abort(*ending_status(error), trailing_metadata=reason_metadata(error))


class ErrorInterceptor(_Wrapping):
    """Domain errors become their status code (server.errors.STATUS_CODES); anything else is INTERNAL, logged."""

    def unary(self, method: str, inner: Unary) -> Unary:
        async def behaviour(request: Any, context: Context) -> Any:
            try:
                return await inner(request, context)
            except (grpc.aio.AbortError, asyncio.CancelledError):
                raise
            except Exception as error:
                await _abort_for(error, context, method)

        return behaviour

    def streaming(self, method: str, inner: Streaming) -> Streaming:
        async def behaviour(request: Any, context: Context) -> AsyncIterator[Any]:
            try:
                async for response in inner(request, context):
                    yield response
            except (grpc.aio.AbortError, asyncio.CancelledError):
                raise
            except Exception as error:
                await _abort_for(error, context, method)

        return behaviour


class AccessLogInterceptor(_Wrapping):
    """One line per call: method, client, status code, duration.

    The client's address is read when the call starts: the core call may be
    gone by the time a cancelled stream's generator is closed.
    """

    def unary(self, method: str, inner: Unary) -> Unary:
        async def behaviour(request: Any, context: Context) -> Any:
            started, client = time.perf_counter(), client_of(context)
            try:
                return await inner(request, context)
            finally:
                self._log(method, client, context, started)

        return behaviour

    def streaming(self, method: str, inner: Streaming) -> Streaming:
        async def behaviour(request: Any, context: Context) -> AsyncIterator[Any]:
            started, client = time.perf_counter(), client_of(context)
            try:
                async for response in inner(request, context):
                    yield response
            finally:
                self._log(method, client, context, started)

        return behaviour

    @staticmethod
    def _log(method: str, client: str, context: Context, started: float) -> None:
        code = context.code()
        log.info("rpc", method=method, client=client, code=code.name if isinstance(code, grpc.StatusCode) else "OK",
                 ms=round((time.perf_counter() - started) * 1000, 2))


class StreamLimitInterceptor(_Wrapping):
    """Every streaming call holds one of its client address's open streams (``streams``: RESOURCE_EXHAUSTED beyond).

    PlayMany's conversations hold one each too (:mod:`tricktable.server.play_many`), from the same count.
    A stream another process of this server forwarded (signed: :mod:`tricktable.server.forwarding`) holds
    none here: it was counted against its client where it arrived, and the one connection it comes on
    carries the streams of every client of that process.
    """

    def __init__(self, streams: ClientStreams) -> None:
        super().__init__()
        self.streams = streams

    def unary(self, method: str, inner: Unary) -> Unary:
        return inner

    def streaming(self, method: str, inner: Streaming) -> Streaming:
        async def behaviour(request: Any, context: Context) -> AsyncIterator[Any]:
            if forwarded(context):
                async for response in inner(request, context):
                    yield response
                return
            with self.streams.held(client_of(context), connection_of(context)):
                async for response in inner(request, context):
                    yield response

        return behaviour


#: The unary call a seat makes with its own token: limited per seat token as well as per connection.
SEAT_CALL = "/tricktable.v1.TableService/SubmitAction"


def _a_move(response: Any) -> bool:
    """Whether a SubmitAction's answer accepted a move (a first answer: a duplicate is not one)."""
    return (isinstance(response, pb.SubmitActionResponse) and response.WhichOneof("outcome") == "accepted"
            and not response.accepted.duplicate)


class ForwardingInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """A call carrying the forwarded-call metadata is refused unless its signature checks (outermost of all).

    What a forwarded call may do that a client's may not is in
    :mod:`tricktable.server.forwarding`; a call without the metadata passes
    untouched, at the cost of one look at its metadata.
    """

    def __init__(self, forwarding: Forwarding) -> None:
        self.forwarding = forwarding
        self._refused = 0

    async def intercept_service(
        self, continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        metadata = handler_call_details.invocation_metadata
        value = hop_value(metadata)
        method = handler_call_details.method
        if handler is None or value is None or not method.startswith(OUR_PREFIX):
            return handler
        try:
            self.forwarding.check(method, value, hop_value(metadata, CLIENT_KEY) or "")
        except ForwardingRefusedError as error:
            refusal = error
        else:
            return handler
        self._refused += 1
        if self._refused & (self._refused - 1) == 0:  # sampled: the 1st, 2nd, 4th, 8th ... refusal
            log.warning("forwarded call refused", method=method.rpartition("/")[2], why=str(refusal),
                        refused=self._refused)
        return _rewrap(handler, lambda _: _refusing_unary(refusal), lambda _: _refusing_streaming(refusal))


def _refusing_unary(error: ForwardingRefusedError) -> Unary:
    async def refuse(request: Any, context: Context) -> Any:
        await context.abort(*ending_status(error), trailing_metadata=reason_metadata(error))

    return refuse


def _refusing_streaming(error: ForwardingRefusedError) -> Streaming:
    async def refuse(request: Any, context: Context) -> AsyncIterator[Any]:
        await context.abort(*ending_status(error), trailing_metadata=reason_metadata(error))
        yield  # never reached: makes this an async generator, as a streaming handler is

    return refuse


class CallRateInterceptor(_Wrapping):
    """Every unary call spends from its connection's bucket (a SubmitAction from its seat token's too) first.

    Past the bucket the call is refused with ``RESOURCE_EXHAUSTED`` (reason
    ``RATE_LIMITED``, a retry hint in milliseconds) before it does any work;
    an accepted move gives its tokens back (:mod:`tricktable.server.call_rate`).
    A call another shard forwarded is limited by its seat token only: the
    forwarding shard limited its client's connection already.
    """

    def __init__(self, rates: CallRates, metrics: Metrics) -> None:
        super().__init__()
        self.rates = rates
        self.metrics = metrics
        self._refused = 0

    def unary(self, method: str, inner: Unary) -> Unary:
        seat_call = method == SEAT_CALL
        name = method.rpartition("/")[2]

        async def behaviour(request: Any, context: Context) -> Any:
            token = request.token if seat_call else ""
            taken = self.rates.take(token, connection_of(context))
            if isinstance(taken, Refusal) and taken.scope == "connection" and forwarded(context):
                taken = self.rates.take(token, "")
            if isinstance(taken, Refusal):
                await self._refuse(name, taken, context)
            response = await inner(request, context)
            if seat_call and _a_move(response):
                self.rates.give_back(taken)
            return response

        return behaviour

    def streaming(self, method: str, inner: Streaming) -> Streaming:
        return inner

    async def _refuse(self, name: str, refusal: Refusal, context: Context) -> NoReturn:
        self.metrics.rate_limited.labels(name, refusal.scope.replace(" ", "_")).inc()
        self._refused += 1
        if self._refused & (self._refused - 1) == 0:  # sampled: the 1st, 2nd, 4th, 8th ... refusal
            log.warning("calls rate limited", method=name, client=client_of(context), scope=refusal.scope,
                        refused=self._refused)
        error = refusal.error(self.rates.rate_of(refusal))
        retry = str(refusal.retry_after_ms)
        await context.abort(*ending_status(error), trailing_metadata=(
            *reason_metadata(error), (RETRY_AFTER_KEY, retry), (PUSHBACK_KEY, retry)))
