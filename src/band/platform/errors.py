"""Errors of the REST link: the platform's error envelope as an exception."""

from __future__ import annotations

from typing import Any

from band.core.exceptions import BandError

__all__ = ["BandRestError"]


class BandRestError(BandError):
    """A non-2xx answer from the platform, parsed from ``{"error": {...}}``.

    ``status`` is the HTTP status; ``code``, ``message``, ``details`` and ``request_id``
    come from the envelope (``code`` is ``"http_<status>"`` when the body had none).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details: dict[str, Any] = details or {}
        self.request_id = request_id

    @classmethod
    def from_envelope(
        cls, status: int, body: Any, *, message: str = "", request_id: str | None = None
    ) -> BandRestError | None:
        """The error ``body``'s ``{"error": {...}}`` envelope describes, or None without one.

        ``message`` and ``request_id`` stand in for what the envelope leaves out.
        """
        envelope = body.get("error") if isinstance(body, dict) else None
        if not isinstance(envelope, dict):
            return None
        details = envelope.get("details")
        return cls(
            status,
            str(envelope.get("code") or f"http_{status}"),
            str(envelope.get("message") or message),
            details if isinstance(details, dict) else None,
            envelope.get("request_id") or request_id,
        )

    @property
    def is_stopped_execution(self) -> bool:
        """True for the platform's "execution is stopped" refusal (403 on posts)."""
        return self.status == 403 and "execution is stopped" in self.message.lower()
