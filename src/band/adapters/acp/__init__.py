"""``ACPClientAdapter``: Band rooms driven by any Agent Client Protocol agent (extra ``acp``).

Importing this package needs nothing beyond the SDK; starting the adapter needs
``agent-client-protocol`` and ``mcp`` (``pip install 'openband[acp]'``).
"""

from .adapter import ACPClientAdapter
from .client import ACPClientProfile, ACPPermissionRequest, PermissionResolver
from .config import ACPClientAdapterConfig
from .session_config import ACPConfigError, ACPConfigRequest, SessionConfigResolver

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPClientProfile",
    "ACPConfigError",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "PermissionResolver",
    "SessionConfigResolver",
]
