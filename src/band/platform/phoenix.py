"""Phoenix Channels v2 framing: frames, refs, reply shapes and upgrade rejections.

A v2 frame is a JSON text array ``[join_ref, ref, topic, event, payload]``. This module is
pure (no I/O) so the socket client and the tests share one encoder and one decoder.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "HEARTBEAT_EVENT",
    "HEARTBEAT_TOPIC",
    "PHX_CLOSE",
    "PHX_ERROR",
    "PHX_JOIN",
    "PHX_LEAVE",
    "PHX_REPLY",
    "ChannelState",
    "Frame",
    "FrameError",
    "RefCounter",
    "UpgradeRejection",
    "decode_frame",
    "encode_frame",
    "parse_upgrade_rejection",
]

PHX_JOIN = "phx_join"
PHX_LEAVE = "phx_leave"
PHX_REPLY = "phx_reply"
PHX_ERROR = "phx_error"
PHX_CLOSE = "phx_close"
HEARTBEAT_TOPIC = "phoenix"
HEARTBEAT_EVENT = "heartbeat"


class FrameError(ValueError):
    """A text frame that is not a Phoenix v2 array."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded Phoenix v2 frame."""

    join_ref: str | None
    ref: str | None
    topic: str
    event: str
    payload: dict[str, Any] = field(default_factory=dict)

    @property
    def reply_status(self) -> str | None:
        """``status`` of a ``phx_reply`` payload (``ok`` / ``error``), else None."""
        status = self.payload.get("status")
        return status if isinstance(status, str) else None

    @property
    def reply_response(self) -> dict[str, Any]:
        """``response`` object of a ``phx_reply`` payload (``{}`` when absent)."""
        response = self.payload.get("response")
        return response if isinstance(response, dict) else {}


def _ref(value: Any) -> str | None:
    # Refs are strings on the wire; numeric refs are coerced so comparisons stay exact.
    if value is None:
        return None
    if isinstance(value, bool):
        raise FrameError("ref must be a string, number or null")
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    raise FrameError("ref must be a string, number or null")


def decode_frame(text: str | bytes) -> Frame:
    """Decode one text frame; a non-object payload becomes ``{}``."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FrameError(f"invalid JSON: {exc}") from exc
    if not isinstance(data, list) or len(data) != 5:
        raise FrameError("frame must be a 5-element array")
    join_ref, ref, topic, event, payload = data
    if not isinstance(topic, str) or not isinstance(event, str):
        raise FrameError("topic and event must be strings")
    return Frame(
        _ref(join_ref), _ref(ref), topic, event, payload if isinstance(payload, dict) else {}
    )


def encode_frame(frame: Frame) -> str:
    """Encode a frame as compact JSON text."""
    return json.dumps(
        [frame.join_ref, frame.ref, frame.topic, frame.event, frame.payload],
        separators=(",", ":"),
    )


@dataclass(slots=True)
class ChannelState:
    """A topic the client holds: its join payload and current join_ref."""

    topic: str
    payload: dict[str, Any]
    join_ref: str | None = None
    joined: bool = False
    errors: int = 0


class RefCounter:
    """Monotonic string refs "1", "2", ...; one per socket client, kept across reconnects."""

    def __init__(self) -> None:
        self._n = 0

    def next(self) -> str:
        self._n += 1
        return str(self._n)


@dataclass(frozen=True, slots=True)
class UpgradeRejection:
    """An HTTP answer that refused the WebSocket upgrade."""

    status: int
    code: str | None = None
    message: str | None = None
    retry_after: float | None = None

    @property
    def terminal(self) -> bool:
        """400 and 409 end the start; anything else is retried."""
        return self.status in (400, 409)

    @property
    def is_conflict(self) -> bool:
        """Another live socket holds this agent and we asked not to supersede it."""
        return self.status == 409 and self.code == "connection_conflict"

    def __str__(self) -> str:
        detail = f" {self.code}" if self.code else ""
        text = f": {self.message}" if self.message else ""
        return f"WebSocket upgrade refused with HTTP {self.status}{detail}{text}"


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value >= 0 else None
    if isinstance(value, str):
        try:
            parsed = float(value.strip())
        except ValueError:
            return None
        return parsed if math.isfinite(parsed) and parsed >= 0 else None
    return None


def parse_upgrade_rejection(
    status: int, body: bytes | None, retry_after_header: str | None = None
) -> UpgradeRejection:
    """Read ``{"error": {code, message, retry_after?}}`` from a refused upgrade.

    Only 400, 409, 429 and 503 bodies are interpreted; other statuses keep just the status.
    """
    if status not in (400, 409, 429, 503):
        return UpgradeRejection(status)
    code: str | None = None
    message: str | None = None
    retry_after: float | None = None
    try:
        data = json.loads(body or b"")
    except (ValueError, UnicodeDecodeError):
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        code = error.get("code") if isinstance(error.get("code"), str) else None
        message = error.get("message") if isinstance(error.get("message"), str) else None
        retry_after = _seconds(error.get("retry_after"))
    if retry_after is None and status == 429:
        retry_after = _seconds(retry_after_header)
    return UpgradeRejection(status, code, message, retry_after)
