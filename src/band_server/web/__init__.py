"""The web app for people: sign in with a key, read rooms, post, watch live updates."""

from __future__ import annotations

from .routes import router

__all__ = ["router"]
