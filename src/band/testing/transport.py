"""Cutting a ``BandLink``'s live WebSocket from a test, to exercise its reconnect.

Production code never drops its own connection, so ``BandLink`` has no API for it: these
reach its socket's live connection directly.
"""

from __future__ import annotations

from websockets.asyncio.client import ClientConnection

from band.platform.link import BandLink

__all__ = ["close_transport", "force_transport_disconnect", "live_connection"]


def live_connection(link: BandLink) -> ClientConnection:
    """The WebSocket connection open under ``link`` (RuntimeError when there is none)."""
    connection = link.socket.connection
    if connection is None:
        raise RuntimeError("BandLink has no active transport connection to close")
    return connection


async def force_transport_disconnect(link: BandLink) -> None:
    """Abort the connection with no close handshake, as a network failure does."""
    live_connection(link).transport.abort()


async def close_transport(link: BandLink) -> None:
    """Close the connection normally from the client side (the server answers 1000)."""
    await live_connection(link).close()
