"""``band serve`` for the ACP tests (from ``tests/adapters/band_serve.py``)."""

from __future__ import annotations

from ..band_serve import alice, band_serve, room

__all__ = ["alice", "band_serve", "room"]
