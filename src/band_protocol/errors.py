"""The error envelope: every 4xx/5xx body is ``{"error": {code, message, request_id, details}}``."""

from __future__ import annotations

from typing import Any

from ._base import WireModel


class ErrorBody(WireModel):
    code: str
    message: str
    request_id: str
    details: dict[str, Any] | None = None


class ErrorEnvelope(WireModel):
    error: ErrorBody
