"""The adapter-facing core: ``SimpleAdapter``, protocols, types, exceptions, delivery."""

from . import exceptions
from .delivery import DeliveryFailedError, deliver_notice, deliver_reply, relay_reply
from .exceptions import *  # noqa: F403  (its __all__, added below)
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
    "AgentInput",
    "AgentToolsProtocol",
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
    "SimpleAdapter",
    "Turn",
    "TurnUsage",
    "deliver_notice",
    "deliver_reply",
    "relay_reply",
]
__all__ += exceptions.__all__
