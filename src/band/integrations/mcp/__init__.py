"""Band's room tools served over MCP (SSE and streamable HTTP) to agents in other processes.

``SharedBandMCPBackend`` gives an adapter one local server of Band's tools; a multi-room
server's tools take a ``chat_id``, a room-bound one serves ``/rooms/<room_id>/...``. Needs
``mcp``, ``starlette`` and ``uvicorn`` (``pip install 'openband[acp]'`` or ``[letta]``).
"""

from .backends import (
    BandMCPBackend,
    BandMCPBackendSettings,
    BandMCPBackendStoppedError,
    BandMCPTransport,
    SharedBandMCPBackend,
)

__all__ = [
    "BandMCPBackend",
    "BandMCPBackendSettings",
    "BandMCPBackendStoppedError",
    "BandMCPTransport",
    "SharedBandMCPBackend",
]
