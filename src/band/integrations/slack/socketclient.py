"""A Socket Mode client whose ``close()`` returns only once its own tasks have ended.

``slack_sdk``'s aiohttp client reconnects from background tasks (its session monitor) that
keep using the web client they borrowed; closing it does not wait for them. A stopped
adapter would then leave tasks behind that touch a closed web client. This subclass tracks
the reconnects in flight and, on ``close()``, cancels and awaits them with the client's
receiver, processor and monitor tasks.
"""

from __future__ import annotations

import asyncio
from typing import Any

from band._extras import needs_extra

with needs_extra("Socket Mode needs slack_sdk and aiohttp", "slack"):
    from slack_sdk.socket_mode.aiohttp import SocketModeClient
    from slack_sdk.web.async_client import AsyncWebClient

__all__ = ["SettlingSocketModeClient"]


class SettlingSocketModeClient(SocketModeClient):
    """``SocketModeClient`` that settles its background work when closed."""

    def __init__(self, *, app_token: str, web_client: AsyncWebClient) -> None:
        self._reconnects: set[asyncio.Task[Any]] = set()
        super().__init__(app_token=app_token, web_client=web_client)

    async def connect_to_new_endpoint(self, force: bool = False) -> None:
        if self.closed:  # a reconnect racing close() must not open a new session
            return
        task = asyncio.current_task()
        if task is not None:
            self._reconnects.add(task)
        try:
            await super().connect_to_new_endpoint(force=force)
        finally:
            if task is not None:
                self._reconnects.discard(task)

    async def close(self) -> None:
        me = asyncio.current_task()
        pending = self._background()
        await super().close()  # type: ignore[no-untyped-call]
        pending |= self._background()
        if me is not None:
            pending.discard(me)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def _background(self) -> set[asyncio.Future[Any]]:
        tasks: set[asyncio.Future[Any]] = set(self._reconnects)
        for name in ("message_processor", "message_receiver", "current_session_monitor"):
            task = getattr(self, name, None)
            if task is not None and not task.done():
                tasks.add(task)
        return tasks
