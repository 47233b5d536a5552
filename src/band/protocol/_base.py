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


def iso(dt: datetime) -> str:
    """Format a timestamp the way Band does: ISO-8601, microseconds, UTC, ``Z`` suffix."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def utcnow() -> datetime:
    return datetime.now(UTC)


class Envelope(WireModel, Generic[T]):
    """The success envelope: ``{"data": ...}``."""

    data: T


class ListEnvelope(WireModel, Generic[T]):
    """A list envelope with paging metadata."""

    data: list[T]
    metadata: dict[str, Any] = {}
