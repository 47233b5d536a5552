"""Platform URLs and process-wide tuning, from the environment (pydantic-settings).

Explicit arguments win, then ``BAND_WS_URL`` / ``BAND_REST_URL`` (case-insensitive, empty
ignored), then the production URLs.
"""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict

from band.platform.urls import DEFAULT_REST_URL, DEFAULT_WS_URL

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "PlatformSettings",
    "RuntimeSettings",
    "resolve_urls",
]

_FROM_ENV = SettingsConfigDict(extra="ignore", case_sensitive=False, env_ignore_empty=True)


class PlatformSettings(BaseSettings):
    """The platform's URLs, overridable by ``BAND_WS_URL`` and ``BAND_REST_URL``."""

    model_config = _FROM_ENV

    BAND_WS_URL: str = DEFAULT_WS_URL
    BAND_REST_URL: str = DEFAULT_REST_URL


class RuntimeSettings(BaseSettings):
    """Process-wide knobs (per-agent ones are ``SessionConfig``'s)."""

    model_config = _FROM_ENV

    BAND_ATTACHMENT_CACHE_MAXSIZE: int = 1000


def resolve_urls(ws_url: str | None, rest_url: str | None) -> tuple[str, str]:
    """``(ws_url, rest_url)``: each explicit one, else the environment's, else production."""
    if ws_url and rest_url:
        return ws_url, rest_url
    settings = PlatformSettings()
    return ws_url or settings.BAND_WS_URL, rest_url or settings.BAND_REST_URL
