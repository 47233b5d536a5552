"""Slack's Socket Mode: one websocket per app (``slack_sdk``'s client), no public URL needed.

Each envelope is acknowledged first (Slack waits three seconds), then an ``events_api``
payload goes to the same dispatcher the HTTP route uses, unless its ``event_id`` was already
taken (Socket Mode redelivers across reconnects).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .dedup import SeenEvents
from .dispatch import EventDispatcher, hand_over
from .types import SlackApp

__all__ = ["SlackSocketListener", "SocketDispatcher", "start_socket_listeners"]

logger = logging.getLogger("band.integrations.slack")
SocketDispatcher = EventDispatcher


class SlackSocketListener:
    """One app's Socket Mode client, kept until it is stopped."""

    def __init__(self, *, app: SlackApp, client: Any) -> None:
        self.app = app
        self._client = client

    @property
    def client(self) -> Any:
        return self._client

    async def stop(self) -> None:
        await self._client.close()


async def start_socket_listeners(
    *,
    apps: Sequence[SlackApp],
    listeners: list[SlackSocketListener],
    web_client_factory: Callable[[SlackApp], Any],
    dispatcher: SocketDispatcher,
    client_factory: Callable[[SlackApp, Any], Any] | None = None,
    seen_events: SeenEvents | None = None,
) -> None:
    """Connect each app (each client is in ``listeners`` before it connects, so a failed
    connection is still stopped by the caller)."""
    factory = client_factory or _default_client
    seen = seen_events or SeenEvents()
    for app in apps:
        client = factory(app, web_client_factory(app))
        listeners.append(SlackSocketListener(app=app, client=client))
        client.socket_mode_request_listeners.append(_handler(app, dispatcher, seen))
        await client.connect()
        logger.info("Slack app %s: Socket Mode connected", app.slug)


def _default_client(app: SlackApp, web_client: Any) -> Any:
    from .socketclient import SettlingSocketModeClient

    return SettlingSocketModeClient(app_token=app.app_token, web_client=web_client)


def _handler(
    app: SlackApp, dispatcher: SocketDispatcher, seen: SeenEvents
) -> Callable[[Any, Any], Awaitable[None]]:
    from slack_sdk.socket_mode.response import SocketModeResponse

    async def handle(client: Any, request: Any) -> None:
        envelope_id = getattr(request, "envelope_id", None)
        if envelope_id is not None:
            try:
                await client.send_socket_mode_response(SocketModeResponse(envelope_id=envelope_id))
            except Exception:
                logger.exception("Slack app %s: acknowledging %s failed", app.slug, envelope_id)
        payload = getattr(request, "payload", None)
        if getattr(request, "type", None) != "events_api" or not isinstance(payload, dict):
            return
        event_id = payload.get("event_id")
        if isinstance(event_id, str) and seen.is_dupe(event_id):
            logger.info("Slack app %s: event %s redelivered; already taken", app.slug, event_id)
            return
        await hand_over(dispatcher, app, payload)

    return handle
