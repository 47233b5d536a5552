"""The platform's socket as typed topic subscriptions: ``WebSocketClient`` and its payloads."""

from band.client.streaming import payloads
from band.client.streaming.client import WebSocketClient
from band.client.streaming.errors import WebSocketUpgradeError
from band.client.streaming.payloads import *  # noqa: F403  (its __all__, added below)
from band.platform.event import WebSocketDisconnectReason

__all__ = ["WebSocketClient", "WebSocketDisconnectReason", "WebSocketUpgradeError"]
__all__ += payloads.__all__
