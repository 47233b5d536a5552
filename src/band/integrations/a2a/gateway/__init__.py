"""The A2A gateway: Band agents served to A2A clients (``pip install 'openband[a2a_gateway]'``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

if TYPE_CHECKING:
    from .adapter import A2AGatewayAdapter
    from .config import A2AGatewayAdapterConfig
    from .server import GatewayServer
    from .types import GatewaySessionState, PendingA2ATask

__all__ = [
    "A2AGatewayAdapter",
    "A2AGatewayAdapterConfig",
    "GatewayServer",
    "GatewaySessionState",
    "PendingA2ATask",
]

_EXPORTS = {
    "A2AGatewayAdapter": "band.integrations.a2a.gateway.adapter",
    "A2AGatewayAdapterConfig": "band.integrations.a2a.gateway.config",
    "GatewayServer": "band.integrations.a2a.gateway.server",
    "GatewaySessionState": "band.integrations.a2a.gateway.types",
    "PendingA2ATask": "band.integrations.a2a.gateway.types",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
