"""ACP (Agent Client Protocol), both halves.

The server half: editors talk to Band peers through Band rooms (``band-acp`` runs
``ACPServer`` over stdio with a ``BandACPServerAdapter`` agent). The client half: Band rooms
on an ACP agent, ``ACPClientAdapter`` (``band.adapters.acp``) on this package's client
pieces (``client_runtime``, ``collecting``, ``stream``, ``room_emitter``, ``sessions``,
``transport``, ``stderr``).
Needs ``pip install 'openband[acp]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

if TYPE_CHECKING:
    from band.adapters.acp import ACPClientAdapter, ACPClientAdapterConfig

    from .client_types import ACPClientSessionState, BandACPClient
    from .event_converter import EventConverter
    from .push_handler import ACPPushHandler
    from .router import AgentRouter
    from .server import ACPServer, run_acp_server
    from .server_adapter import BandACPServerAdapter, BandACPServerAdapterConfig
    from .session_config import ACPConfigRequest
    from .types import ACPSessionState, CollectedChunk, PendingACPPrompt

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPClientSessionState",
    "ACPConfigRequest",
    "ACPPushHandler",
    "ACPServer",
    "ACPSessionState",
    "AgentRouter",
    "BandACPClient",
    "BandACPServerAdapter",
    "BandACPServerAdapterConfig",
    "CollectedChunk",
    "EventConverter",
    "PendingACPPrompt",
    "run_acp_server",
]

_EXPORTS = {
    "ACPClientAdapter": "band.adapters.acp",
    "ACPClientAdapterConfig": "band.adapters.acp",
    "ACPClientSessionState": "band.converters.acp_client",
    "BandACPClient": "band.integrations.acp.client_types",
    "ACPConfigRequest": "band.integrations.acp.session_config",
    "ACPPushHandler": "band.integrations.acp.push_handler",
    "ACPServer": "band.integrations.acp.server",
    "ACPSessionState": "band.integrations.acp.types",
    "AgentRouter": "band.integrations.acp.router",
    "BandACPServerAdapter": "band.integrations.acp.server_adapter",
    "BandACPServerAdapterConfig": "band.integrations.acp.server_adapter",
    "CollectedChunk": "band.integrations.acp.types",
    "EventConverter": "band.integrations.acp.event_converter",
    "PendingACPPrompt": "band.integrations.acp.types",
    "run_acp_server": "band.integrations.acp.server",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
