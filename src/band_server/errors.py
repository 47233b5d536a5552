"""Domain errors and their mapping to the error envelope.

Services raise :class:`ApiError` subclasses; they know nothing about HTTP beyond a status code
hint. The app turns every exception into ``{"error": {code, message, request_id, details?}}``.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refusal with its envelope: ``code``, the HTTP status it maps to, optional details.

    A subclass names its status and code as class keywords: ``class Gone(ApiError,
    status=410, code="gone")``."""

    status_code = 400
    code = "bad_request"

    def __init_subclass__(
        cls, *, status: int | None = None, code: str | None = None, **options: Any
    ) -> None:
        super().__init_subclass__(**options)
        if status is not None:
            cls.status_code = status
        if code is not None:
            cls.code = code

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


class Unauthorized(ApiError, status=401, code="unauthorized"):
    """No valid credentials."""


class Forbidden(ApiError, status=403, code="forbidden"):
    """Credentials that do not allow this."""


class NotFound(ApiError, status=404, code="not_found"):
    """Nothing there, or nothing the caller may see."""


class Conflict(ApiError, status=409, code="conflict"):
    """The state of things refuses the change."""


class ValidationFailed(ApiError, status=422, code="validation_error"):
    """422 with JSON-pointer keys in ``details``."""

    def __init__(
        self,
        message: str,
        details: dict[str, list[str]] | None = None,
        *,
        code: str | None = None,
    ) -> None:
        super().__init__(message, details=details or {}, code=code)


class RoomStopped(ApiError, status=403, code="execution_stopped"):
    """The room's owner stopped agent execution in it."""

    def __init__(self) -> None:
        super().__init__("Agent execution is stopped in this room")
