"""``ACPClientAdapter``: Band rooms driven by any Agent Client Protocol agent (extra ``acp``).

Importing this package needs nothing beyond the SDK; starting the adapter needs
``agent-client-protocol`` and ``mcp`` (``pip install 'openband[acp]'``).
"""

from .adapter import ACPClientAdapter
from .client import ACPPermissionRequest, PermissionResolver
from .config import ACPClientAdapterConfig

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPPermissionRequest",
    "PermissionResolver",
]
