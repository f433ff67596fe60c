"""The interceptors wrap each method's handler once, not once per call."""

from __future__ import annotations

from typing import Any

import grpc

from tricktable.server.interceptors import AccessLogInterceptor, ErrorInterceptor, StreamLimitInterceptor
from tricktable.server.stream_guard import ClientStreams

METHOD = "/tricktable.v1.TableService/CreateTable"


class _Details(grpc.HandlerCallDetails):
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


async def _answer(request: Any, context: Any) -> Any:
    return request


async def test_each_interceptor_wraps_a_method_handler_once_while_the_handler_stays_the_same() -> None:
    handlers = [grpc.unary_unary_rpc_method_handler(_answer), grpc.unary_unary_rpc_method_handler(_answer)]
    for interceptor in (AccessLogInterceptor(), ErrorInterceptor(), StreamLimitInterceptor(ClientStreams(10))):
        current = [handlers[0]]

        async def below(details: grpc.HandlerCallDetails, current: list[Any] = current) -> Any:
            return current[0]

        first = await interceptor.intercept_service(below, _Details(METHOD))
        assert first is not handlers[0]
        assert await interceptor.intercept_service(below, _Details(METHOD)) is first
        current[0] = handlers[1]  # another handler below (a server built again): wrapped anew
        second = await interceptor.intercept_service(below, _Details(METHOD))
        assert second is not first
        assert await interceptor.intercept_service(below, _Details("/grpc.health.v1.Health/Check")) is handlers[1]
