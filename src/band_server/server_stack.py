"""How the platform is served: one place for the uvicorn options every entry point uses.

uvloop and httptools (installed with ``uvicorn[standard]``) when present; the sans-I/O
``websockets`` implementation (lightened for held sockets: ``ws_protocol``) with
permessage-deflate off (a compressor and decompressor per
socket weigh on every idle socket's memory: docs/decisions.md, "Idle sockets: memory,
handshakes, the collector"); a listen backlog that lets thousands of agents reconnect at once.
"""

from __future__ import annotations

import gc
import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

YOUNG_GC_THRESHOLD = 10_000
"""Allocations between two youngest-generation collections (CPython's default: 700)."""


def uvicorn_options() -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` / ``uvicorn.Config``."""
    has = importlib.util.find_spec
    ws: Any = "wsproto"
    if has("websockets"):
        from .ws_protocol import HeldSocketProtocol

        ws = HeldSocketProtocol
    http: Any = "h11"
    if has("httptools"):
        from .http_protocol import JoinedHttpProtocol

        http = JoinedHttpProtocol
    return {
        "loop": "uvloop" if has("uvloop") else "asyncio",
        "http": http,
        "ws": ws,
        "ws_per_message_deflate": False,
        "ws_ping_interval": 20.0,
        "ws_ping_timeout": 20.0,
        "backlog": 4096,
    }


@contextmanager
def steady_heap() -> Iterator[None]:
    """While the app serves: what start-up built is frozen out of the cyclic GC.

    The imported modules, routes, models and compiled statements never become garbage, yet
    every full collection walked them all (a tail-latency spike each time) and every
    older-generation one many of them; and the youngest generation ran a few times per
    request. Frozen, and with a larger young threshold, the collector only looks at what
    requests allocate (docs/decisions.md, "Idle sockets: memory, handshakes, the collector").
    On exit
    the heap is unfrozen, so a process that runs several apps one after the other (tests)
    collects each one once it is gone.
    """
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GC_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
