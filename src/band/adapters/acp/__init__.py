"""``ACPClientAdapter``: Band rooms driven by any Agent Client Protocol agent (extra ``acp``).

Importing this package needs nothing beyond the SDK; starting the adapter needs
``agent-client-protocol`` and ``mcp`` (``pip install 'openband[acp]'``).
"""

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

from .adapter import ACPClientAdapter
from .client import ACPClientProfile, ACPPermissionRequest, PermissionResolver
from .config import ACPClientAdapterConfig
from .session_config import ACPConfigError, ACPConfigRequest, SessionConfigResolver

if TYPE_CHECKING:
    from band.integrations.acp.server import ACPServer
    from band.integrations.acp.server_adapter import (
        BandACPServerAdapter,
        BandACPServerAdapterConfig,
    )

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPClientProfile",
    "ACPConfigError",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "ACPServer",
    "BandACPServerAdapter",
    "BandACPServerAdapterConfig",
    "PermissionResolver",
    "SessionConfigResolver",
]

# The server half (editors talking to Band peers), as band-sdk also offers it from here.
_EXPORTS = {
    "ACPServer": "band.integrations.acp.server",
    "BandACPServerAdapter": "band.integrations.acp.server_adapter",
    "BandACPServerAdapterConfig": "band.integrations.acp.server_adapter",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
