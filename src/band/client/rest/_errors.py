"""band-client-rest's typed errors: 401, 404 and 422 each have a class; unparseable answers too.

Every one is an ``ApiError`` (so ``status_code`` and ``body``), built from the answer's body.
"""

from __future__ import annotations

from typing import Any

from band.platform.errors import BandRestError

__all__ = [
    "NotFoundError",
    "ParsingError",
    "UnauthorizedError",
    "UnprocessableEntityError",
    "raise_for",
]


class ApiError(BandRestError):
    """A non-2xx answer; ``status_code`` and ``body`` as band-client-rest names them."""

    def __init__(self, error: BandRestError, body: Any = None) -> None:
        super().__init__(error.status, error.code, error.message, error.details, error.request_id)
        self.body = body

    @property
    def status_code(self) -> int:
        return self.status


def _error_of(status: int, body: Any) -> BandRestError:
    parsed = BandRestError.from_envelope(status, body)
    if parsed is not None:
        return parsed
    return BandRestError(status, f"http_{status}", str(body or "")[:200])


class _StatusError(ApiError):
    STATUS = 0

    def __init__(self, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(_error_of(self.STATUS, body), body)
        self.headers = dict(headers or {})


class UnauthorizedError(_StatusError):
    """401: the key is missing, wrong or revoked."""

    STATUS = 401


class NotFoundError(_StatusError):
    """404: no such resource, or not one this caller may see."""

    STATUS = 404


class UnprocessableEntityError(_StatusError):
    """422: the request was refused as invalid (``body`` names the fields)."""

    STATUS = 422


class ParsingError(Exception):
    """A 2xx answer whose body did not have the expected shape."""

    def __init__(
        self,
        *,
        headers: dict[str, str] | None = None,
        status_code: int | None = None,
        body: Any = None,
        cause: Exception | None = None,
    ) -> None:
        super().__init__(f"could not parse the answer (HTTP {status_code}): {cause}")
        self.headers, self.status_code, self.body, self.cause = headers, status_code, body, cause


_BY_STATUS: dict[int, type[_StatusError]] = {
    401: UnauthorizedError,
    404: NotFoundError,
    422: UnprocessableEntityError,
}


def raise_for(error: BandRestError, body: Any, headers: dict[str, str]) -> None:
    """Raise the typed error for a refused call (``ApiError`` for other statuses)."""
    typed = _BY_STATUS.get(error.status)
    if typed is not None:
        raise typed(body, headers)
    raise ApiError(error, body)
