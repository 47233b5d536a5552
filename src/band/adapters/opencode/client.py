"""The adapter's live link to ``opencode serve``: a client and the one task reading its
``/event`` stream into the adapter; the default client, and whether a session still exists."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from band.integrations.opencode import HttpOpencodeClient, OpencodeClientProtocol

from .config import OpencodeAdapterConfig

__all__ = ["OpencodeConnection", "has_session", "http_client"]

logger = logging.getLogger("band.adapters.opencode")
Handler = Callable[[dict[str, Any]], Awaitable[None]]


class OpencodeConnection:
    """A client whose event stream is read once; ``alive`` while it is."""

    def __init__(self, client: OpencodeClientProtocol, base_url: str) -> None:
        self.client = client
        self.base_url = base_url
        self.reader: asyncio.Task[None] | None = None
        self.ended = ""

    @property
    def alive(self) -> bool:
        return self.reader is not None and not self.reader.done()

    def listen(self, handler: Handler) -> None:
        """Start reading the events into ``handler`` (once)."""
        if self.reader is None:
            self.reader = asyncio.create_task(self._read(handler))

    async def _read(self, handler: Handler) -> None:
        try:
            async for event in self.client.iter_events():
                await handler(event)
            self.ended = "the server closed its event stream"
        except Exception as exc:
            self.ended = f"its event stream failed: {exc}"
        logger.warning("OpenCode at %s: %s", self.base_url, self.ended)

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader
        await self.client.close()


def http_client(config: OpencodeAdapterConfig) -> OpencodeClientProtocol:
    """The default ``client_factory``: HTTP to ``config.base_url``."""
    return HttpOpencodeClient(
        base_url=config.base_url,
        directory=config.directory,
        workspace=config.workspace,
        timeout_s=config.turn_timeout_s,
    )


async def has_session(client: OpencodeClientProtocol, session_id: str) -> bool:
    """Whether the server still has the session (a 404 says it has not)."""
    try:
        await client.get_session(session_id)
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code == 404:
            return False
        raise
    return True
