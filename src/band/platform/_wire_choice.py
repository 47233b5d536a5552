"""Which wire carries the REST link's requests (``make_wire``), from its URL and environment."""

from __future__ import annotations

import urllib.request
from urllib.parse import urlsplit

import httpx

from ._stream_wire import StreamWire
from ._wire import AiohttpWire, HttpxWire, Wire

__all__ = ["make_wire"]


def make_wire(
    base_url: str,
    headers: dict[str, str],
    transport: httpx.AsyncBaseTransport | None,
    timeout: float,
    limits: httpx.Limits,
    follow_redirects: bool = False,
) -> Wire:
    """The plain wire for a direct link, aiohttp for one that follows redirects, httpx's
    client for a given transport or a proxy (or where aiohttp is not installed)."""
    if transport is not None or _proxied(base_url) or not _has("aiohttp"):
        return HttpxWire(
            httpx.AsyncClient(
                base_url=base_url,
                headers=headers,
                transport=transport,
                timeout=timeout,
                limits=limits,
                follow_redirects=follow_redirects,
            )
        )
    # httpx's default headers with ours on top, as its client would send them (a client on a
    # placeholder transport builds no pool or TLS context).
    sent = httpx.AsyncClient(headers=headers, transport=_UNUSED).headers
    limit = limits.max_connections or 100
    aiohttp_wire = AiohttpWire(base_url, sent, timeout, limit, follow_redirects)
    if follow_redirects or urlsplit(base_url).scheme not in ("http", "https"):
        return aiohttp_wire
    return StreamWire(base_url, sent, timeout, limit, fallback=aiohttp_wire)


def _unused(request: httpx.Request) -> httpx.Response:
    raise AssertionError("the placeholder transport never sends")


_UNUSED = httpx.MockTransport(_unused)


def _proxied(base_url: str) -> bool:
    """Whether the environment sends ``base_url`` through a proxy (``NO_PROXY`` alone does not)."""
    proxies = urllib.request.getproxies()
    parts = urlsplit(base_url)
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass(parts.hostname or "")


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True
