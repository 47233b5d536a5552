"""The adapter-facing core: ``SimpleAdapter``, protocols, types, exceptions, delivery."""

from .delivery import DeliveryFailedError, deliver_notice, deliver_reply, relay_reply
from .exceptions import (
    AgentAlreadyRunningError,
    BandConfigError,
    BandConnectionError,
    BandError,
    BandToolError,
    RoomExecutionStoppedError,
    TurnResultAlreadyReported,
)
from .protocols import AgentToolsProtocol, FrameworkAdapter, HistoryConverter, Preprocessor
from .simple_adapter import SimpleAdapter
from .turn import Turn
from .types import (
    ALL_CAPABILITIES,
    AdapterFeatures,
    AgentInput,
    Capability,
    ConflictPolicy,
    Emit,
    FeatureKwargs,
    HistoryProvider,
    MessageType,
    PlatformConnection,
    PlatformMessage,
    TurnUsage,
)

__all__ = [
    "ALL_CAPABILITIES",
    "AdapterFeatures",
    "AgentAlreadyRunningError",
    "AgentInput",
    "AgentToolsProtocol",
    "BandConfigError",
    "BandConnectionError",
    "BandError",
    "BandToolError",
    "Capability",
    "ConflictPolicy",
    "DeliveryFailedError",
    "Emit",
    "FeatureKwargs",
    "FrameworkAdapter",
    "HistoryConverter",
    "HistoryProvider",
    "MessageType",
    "PlatformConnection",
    "PlatformMessage",
    "Preprocessor",
    "RoomExecutionStoppedError",
    "SimpleAdapter",
    "Turn",
    "TurnResultAlreadyReported",
    "TurnUsage",
    "deliver_notice",
    "deliver_reply",
    "relay_reply",
]
