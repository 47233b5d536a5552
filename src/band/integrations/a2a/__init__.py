"""A2A (Agent-to-Agent), both ways: a remote A2A agent as a Band agent (``A2AAdapter``), and
Band agents served to A2A clients (``band.integrations.a2a.gateway``).

Needs a2a-sdk 1.x: ``pip install 'openband[a2a]'`` (the gateway: ``openband[a2a_gateway]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

if TYPE_CHECKING:
    from .adapter import A2AAdapter
    from .types import A2AAdapterConfig, A2AAuth, A2ASessionState

__all__ = ["A2AAdapter", "A2AAdapterConfig", "A2AAuth", "A2ASessionState"]

_EXPORTS = {
    "A2AAdapter": "band.integrations.a2a.adapter",
    "A2AAdapterConfig": "band.integrations.a2a.types",
    "A2AAuth": "band.integrations.a2a.types",
    "A2ASessionState": "band.integrations.a2a.types",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
