"""Phoenix Channels v2 framing: ``[join_ref, ref, topic, event, payload]`` JSON arrays.

Parsing never raises. A frame that cannot be used becomes a :class:`BadFrame` that still
carries whatever ref and topic could be read, so the socket can answer with an error reply
instead of going silent (or, worse, crashing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

VSN = "2.0.0"
PHOENIX_TOPIC = "phoenix"
JOIN = "phx_join"
LEAVE = "phx_leave"
REPLY = "phx_reply"
HEARTBEAT = "heartbeat"

# The official client only ever sends joins, leaves and heartbeats; these are tiny. A bound keeps
# one socket from making the server parse megabytes of JSON per frame.
MAX_FRAME_CHARS = 64 * 1024


@dataclass(frozen=True)
class Frame:
    """One well-formed inbound frame."""

    join_ref: str | None
    ref: str | None
    topic: str
    event: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class BadFrame:
    """An unusable inbound frame; ``ref`` is None when no reply can be addressed."""

    reason: str
    join_ref: str | None = None
    ref: str | None = None
    topic: str = PHOENIX_TOPIC


def _ref(value: object) -> str | None:
    # The client coerces numeric refs to strings; accept both, and nothing else.
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return None


def parse_frame(text: str) -> Frame | BadFrame:
    """Decode one text frame into a :class:`Frame`, or explain why it is unusable."""
    if len(text) > MAX_FRAME_CHARS:
        return BadFrame("frame too large")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        # RecursionError: deeply nested arrays ("[[[[...") exhaust the decoder's stack.
        return BadFrame("invalid JSON")
    if not isinstance(data, list):
        return BadFrame("frame must be a JSON array")
    join_ref = _ref(data[0]) if len(data) > 0 else None
    ref = _ref(data[1]) if len(data) > 1 else None
    raw_topic = data[2] if len(data) > 2 else None
    topic = raw_topic if isinstance(raw_topic, str) and raw_topic else PHOENIX_TOPIC
    if len(data) != 5:
        return BadFrame(
            "frame must be [join_ref, ref, topic, event, payload]", join_ref, ref, topic
        )
    _, _, _, event, payload = data
    if not isinstance(raw_topic, str) or not raw_topic:
        return BadFrame("topic must be a non-empty string", join_ref, ref, topic)
    if not isinstance(event, str) or not event:
        return BadFrame("event must be a non-empty string", join_ref, ref, topic)
    if not isinstance(payload, dict):
        return BadFrame("payload must be an object", join_ref, ref, topic)
    if ref is None and data[1] is not None:
        return BadFrame("ref must be a string", join_ref, None, topic)
    return Frame(join_ref, ref, raw_topic, event, payload)


def encode_reply(
    join_ref: str | None,
    ref: str | None,
    topic: str,
    status: str,
    response: dict[str, Any] | None = None,
) -> str:
    """A ``phx_reply`` frame answering the inbound frame with this ``ref``."""
    payload = {"status": status, "response": response or {}}
    return json.dumps([join_ref, ref, topic, REPLY, payload], separators=(",", ":"))


def ok_reply(join_ref: str | None, ref: str | None, topic: str) -> str:
    """``{"status": "ok", "response": {}}`` for the frame with this ``ref``."""
    return encode_reply(join_ref, ref, topic, "ok")


def error_reply(join_ref: str | None, ref: str | None, topic: str, reason: str) -> str:
    """``{"status": "error", "response": {"reason": ...}}`` for the frame with this ``ref``."""
    return encode_reply(join_ref, ref, topic, "error", {"reason": reason})
