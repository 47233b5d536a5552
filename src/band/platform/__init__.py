"""The link to the platform: ``BandLink`` (socket + REST), its events and REST clients."""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

from .errors import BandRestError
from .rest import BandRestClient, MarkResult

__all__ = [
    "BandLink",
    "BandRestClient",
    "BandRestError",
    "MarkResult",
    "PlatformEvent",
    "SettlementResult",
]

_LAZY = {
    "BandLink": "band.platform.link",
    "PlatformEvent": "band.platform.event",
    "SettlementResult": "band.platform.message_lifecycle",
}

if TYPE_CHECKING:
    from .event import PlatformEvent
    from .link import BandLink
    from .message_lifecycle import SettlementResult

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
