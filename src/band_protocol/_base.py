"""Shared base classes and helpers for the wire models."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


class WireModel(BaseModel):
    """A payload that travels between the platform and its clients.

    Unknown fields are kept, so an older client reading a newer payload loses nothing.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class RequestModel(BaseModel):
    """A request body; unknown fields are ignored rather than refused (clients evolve)."""

    model_config = ConfigDict(extra="ignore")


# The last ``datetime`` ``iso`` formatted, and its text: one tuple, read and replaced whole
# (safe across threads). The entry holds the object, so its id is never another's meanwhile.
_last_iso: list[tuple[datetime, str]] = [(datetime.min, "")]


def iso(dt: datetime) -> str:
    """Format a timestamp the way Band does: ISO-8601, microseconds, UTC, ``Z`` suffix.

    A naive timestamp is UTC (the database's). ``isoformat`` gives the same text as
    ``strftime("%Y-%m-%dT%H:%M:%S.%fZ")`` at a third of its cost (every payload formats a
    few); ``strftime`` stays for years before 1000, which it does not pad everywhere. The
    same object again gets the last text back: a post's instant is formatted once for its
    row (``store.direct``, from this text) and its payload.
    """
    seen = _last_iso[0]
    if seen[0] is dt:
        return seen[1]
    text = _iso(dt)
    _last_iso[0] = (dt, text)
    return text


def _iso(dt: datetime) -> str:
    tz = dt.tzinfo
    if tz is not None and tz is not UTC:
        dt = dt.astimezone(UTC)
    if dt.year < 1000:
        return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    text = dt.isoformat(timespec="microseconds")
    return (text if tz is None else text[:-6]) + "Z"


def utcnow() -> datetime:
    return datetime.now(UTC)


class Envelope(WireModel, Generic[T]):
    """The success envelope: ``{"data": ...}``."""

    data: T


class ListEnvelope(WireModel, Generic[T]):
    """A list envelope with paging metadata."""

    data: list[T]
    metadata: dict[str, Any] = {}
