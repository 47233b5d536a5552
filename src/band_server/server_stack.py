"""How the platform is served: one place for the uvicorn options every entry point uses.

uvloop and httptools (installed with ``uvicorn[standard]``) when present; the sans-I/O
``websockets`` implementation with permessage-deflate off (a compressor and decompressor per
socket would cost 40-110 KiB of memory each, see docs/decisions.md); a listen backlog that
lets thousands of agents reconnect at once.
"""

from __future__ import annotations

import importlib.util
from typing import Any


def uvicorn_options() -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` / ``uvicorn.Config``."""
    has = importlib.util.find_spec
    return {
        "loop": "uvloop" if has("uvloop") else "asyncio",
        "http": "httptools" if has("httptools") else "h11",
        "ws": "wsproto" if has("wsproto") else "websockets-sansio",
        "ws_per_message_deflate": False,
        "ws_ping_interval": 20.0,
        "ws_ping_timeout": 20.0,
        "backlog": 4096,
    }
