"""The one table from domain errors to status codes."""

from __future__ import annotations

import grpc

from tricktable.rules.errors import NotationError, OptionsError, RecordError
from tricktable.server import errors
from tricktable.server.errors import STATUS_CODES, ServerError, status_for


def all_subclasses(cls: type) -> set[type]:
    found: set[type] = set(cls.__subclasses__())
    for sub in list(found):
        found |= all_subclasses(sub)
    return found


def test_every_domain_error_has_a_status_code() -> None:
    unmapped = [cls.__name__ for cls in all_subclasses(ServerError) if status_for(cls("x")) is None]
    assert unmapped == []
    for cls in (OptionsError, NotationError, RecordError):
        assert status_for(cls("x")) is grpc.StatusCode.INVALID_ARGUMENT


def test_the_codes_the_issue_names() -> None:
    assert STATUS_CODES[errors.TableNotFoundError] is grpc.StatusCode.NOT_FOUND
    assert STATUS_CODES[errors.BadTokenError] is grpc.StatusCode.UNAUTHENTICATED
    assert STATUS_CODES[errors.InvalidRequestError] is grpc.StatusCode.INVALID_ARGUMENT
    assert STATUS_CODES[errors.TooManyTablesError] is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_a_foreign_error_is_not_a_domain_error() -> None:
    assert status_for(KeyError("x")) is None

