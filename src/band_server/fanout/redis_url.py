"""Connecting to Redis with redis-py (presence) and naming a Redis URL in logs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from redis.asyncio import Redis

INSTALL_HINT = "the Redis bus needs the redis extra: pip install 'openband[redis]'"


def _redis_class() -> type[Redis]:
    try:
        from redis.asyncio import Redis
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError(INSTALL_HINT) from exc
    return Redis


async def connect(url: str, **options: Any) -> Redis:
    """A Redis client that answered a PING, else ``RuntimeError`` naming the (redacted) URL."""
    client = _redis_class().from_url(url, **options)
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        raise RuntimeError(f"cannot reach Redis at {redact(url)}: {exc}") from exc
    return client


def redact(url: str) -> str:
    """The URL without its password, for log lines."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
