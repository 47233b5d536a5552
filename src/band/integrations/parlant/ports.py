"""Free ports for a Parlant server, so several can run on one host.

Parlant's defaults (8800 for the API, 8818 for its tool service) collide as soon as two
servers share a host, and port 0 cannot work because Parlant formats the number into its own
URLs rather than reading the bound one back. So both are reserved here: bound to port 0 on the
host that will serve them, read back, and released for Parlant to bind (the usual
reserve-then-rebind race, far less likely than the fixed-port collision).
"""

from __future__ import annotations

import logging
import socket
from typing import NamedTuple

__all__ = ["ServerPorts", "reserve_server_ports"]

logger = logging.getLogger(__name__)

TOOL_SERVICE_HOST = "127.0.0.1"  # Parlant binds its tool service here, whatever ``host`` is


class ServerPorts(NamedTuple):
    """A free pair for ``p.Server(port=..., tool_service_port=...)``."""

    port: int
    tool_service_port: int


def reserve_server_ports(host: str | None = None) -> ServerPorts:
    """Two ports the OS reports free: the API's on ``host`` (None: all interfaces, Parlant's
    default) and the tool service's on loopback. Logged, to match against ``lsof`` later."""
    api_host = "0.0.0.0" if host is None else host  # nosec B104 # a probe for a free port, closed at once; it tests the address Parlant binds (all, when no host is given)
    with socket.socket() as api_sock, socket.socket() as tool_sock:
        # Both are held at once so the OS cannot hand the same number out twice.
        api_sock.bind((api_host, 0))
        tool_sock.bind((TOOL_SERVICE_HOST, 0))
        ports = ServerPorts(int(api_sock.getsockname()[1]), int(tool_sock.getsockname()[1]))
    logger.info("Parlant server ports: api=%d, tool_service=%d", *ports)
    return ports
