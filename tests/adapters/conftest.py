"""Fixtures of the coding-agent end-to-end tests (Codex, ACP): one ``band serve`` for the
whole session, Alice, a fresh room per test and the module's fake model endpoint. Framework
adapter folders bring their own ``alice`` (``framework_support.py``)."""

from __future__ import annotations

from .band_serve import alice, band_serve, room
from .coding_e2e import anthropic_url, model_url

__all__ = ["alice", "anthropic_url", "band_serve", "model_url", "room"]
