"""Shared base classes and helpers for the wire models."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo
from functools import partial
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
# The second ``_iso`` formatted last: from ``lo`` (its whole second) to ``hi`` (one second on),
# of ``lo``'s kind (``tz``: UTC, or None for naive), and its text up to the ``.``. One tuple,
# read and replaced whole, as ``_last_iso``.
_last_second: list[tuple[datetime, datetime, tzinfo | None, str]] = [
    (datetime.max, datetime.min, None, "")
]
_ONE_SECOND = timedelta(seconds=1)
_DIGITS = tuple(f"{n:03d}" for n in range(1000))  # a third of the microseconds' six digits
_DIGITS_Z = tuple(f"{n:03d}Z" for n in range(1000))


def iso(dt: datetime) -> str:
    """Format a timestamp the way Band does: ISO-8601, microseconds, UTC, ``Z`` suffix.

    A naive timestamp is UTC (the database's). The same text as
    ``strftime("%Y-%m-%dT%H:%M:%S.%fZ")``: the text up to the second is kept for the second
    it names (the posts of a second share it), the microseconds are looked up three digits at
    a time; ``strftime`` stays for years before 1000, which it does not pad everywhere. The
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
        tz = UTC
    lo, hi, kind, head = _last_second[0]
    # Datetimes of one ``tzinfo`` (or both naive) compare by their fields alone.
    if kind is not tz or not lo <= dt < hi:
        if dt.year < 1000:
            return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        lo = dt.replace(microsecond=0)
        try:
            hi = lo + _ONE_SECOND
        except OverflowError:  # the last second there is: kept for no other
            hi = lo
        head = dt.isoformat(timespec="seconds")[:19] + "."
        _last_second[0] = (lo, hi, tz, head)
    us = dt.microsecond
    return head + _DIGITS[us // 1000] + _DIGITS_Z[us % 1000]


utcnow: Callable[[], datetime] = partial(datetime.now, UTC)
"""The current time, aware, in UTC: ``datetime.now(UTC)`` (a ``partial``: no Python frame for
it, and every post and mark asks it)."""


class Envelope(WireModel, Generic[T]):
    """The success envelope: ``{"data": ...}``."""

    data: T


class ListEnvelope(WireModel, Generic[T]):
    """A list envelope with paging metadata."""

    data: list[T]
    metadata: dict[str, Any] = {}
