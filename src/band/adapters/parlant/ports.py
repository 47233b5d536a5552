"""Reserving a free API / tool-service port pair for an adapter-owned Parlant server.

Parlant's defaults (8800 and 8818) collide as soon as two servers share a host, and a
port of 0 cannot work because Parlant formats the number into its own URLs.
"""

from __future__ import annotations

import logging
import socket

__all__ = ["reserve_port_pair"]

# The page documents this logger name for the ports line.
logger = logging.getLogger("band.integrations.parlant.ports")

TOOL_SERVICE_HOST = "127.0.0.1"  # Parlant binds its tool service here, whatever ``host`` is


def reserve_port_pair(host: str | None) -> tuple[int, int]:
    """Two ports the OS reports free: (api on ``host``, tool service on loopback)."""
    api_host = host or "0.0.0.0"  # nosec B104 # a probe for a free port, closed at once; it tests the address Parlant binds (all, when no host is given)
    with socket.socket() as api_sock, socket.socket() as tool_sock:
        # Both are held at once so the OS cannot hand the same number out twice.
        api_sock.bind((api_host, 0))
        tool_sock.bind((TOOL_SERVICE_HOST, 0))
        api_port = int(api_sock.getsockname()[1])
        tool_port = int(tool_sock.getsockname()[1])
    logger.info("Parlant server ports: api=%d, tool_service=%d", api_port, tool_port)
    return api_port, tool_port
