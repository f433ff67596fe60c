"""The one table from gRPC status codes to the SDK's typed errors."""

from __future__ import annotations

import grpc
import pytest

from tricktable.client_sdk import errors
from tricktable.rules.errors import TricktableError


@pytest.mark.parametrize(("code", "expected"), [
    (grpc.StatusCode.UNAUTHENTICATED, errors.JoinRejected),
    (grpc.StatusCode.PERMISSION_DENIED, errors.PermissionDenied),
    (grpc.StatusCode.NOT_FOUND, errors.TableNotFound),
    (grpc.StatusCode.INVALID_ARGUMENT, errors.InvalidRequest),
    (grpc.StatusCode.FAILED_PRECONDITION, errors.TableNotPlayable),
    (grpc.StatusCode.RESOURCE_EXHAUSTED, errors.LimitExceeded),
    (grpc.StatusCode.UNAVAILABLE, errors.ConnectionLost),
])
def test_status_maps_to_its_typed_error(code: grpc.StatusCode, expected: type[errors.SdkError]) -> None:
    error = errors.error_for_status(code, "why")
    assert type(error) is expected
    assert error.code is code
    assert str(error) == f"{code.name}: why"


def test_every_status_gives_a_tricktable_error() -> None:
    for code in grpc.StatusCode:
        if code is grpc.StatusCode.OK:
            continue
        assert isinstance(errors.error_for_status(code, ""), TricktableError)


def test_retryable_codes_are_the_connection_kind() -> None:
    assert grpc.StatusCode.UNAVAILABLE in errors.RETRYABLE
    assert grpc.StatusCode.UNAUTHENTICATED not in errors.RETRYABLE
    assert grpc.StatusCode.NOT_FOUND not in errors.RETRYABLE
