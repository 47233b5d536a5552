"""Domain errors and their mapping to the error envelope.

Services raise :class:`ApiError` subclasses; they know nothing about HTTP beyond a status code
hint. The app turns every exception into ``{"error": {code, message, request_id, details?}}``.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    status_code = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status_code: int | None = None,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status_code is not None:
            self.status_code = status_code
        self.details = details
        self.headers = headers


class Unauthorized(ApiError):
    status_code = 401
    code = "unauthorized"


class Forbidden(ApiError):
    status_code = 403
    code = "forbidden"


class NotFound(ApiError):
    status_code = 404
    code = "not_found"


class Conflict(ApiError):
    status_code = 409
    code = "conflict"


class ValidationFailed(ApiError):
    """422 with JSON-pointer keys in ``details``."""

    status_code = 422
    code = "validation_error"

    def __init__(
        self,
        message: str,
        details: dict[str, list[str]] | None = None,
        *,
        code: str | None = None,
    ) -> None:
        super().__init__(message, details=details or {}, code=code)


class RoomStopped(ApiError):
    status_code = 403
    code = "execution_stopped"

    def __init__(self) -> None:
        super().__init__("Agent execution is stopped in this room")
