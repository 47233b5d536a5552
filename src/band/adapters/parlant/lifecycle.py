"""Who owns the Parlant server and agent an adapter talks to, and starting and stopping them.

A server (and agent) the caller passes in is borrowed: it is used, never stopped. Otherwise
the adapter runs its own server through ``running_parlant_server`` and stops it on release,
forgetting the agent it created there.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from band.integrations.parlant.server import running_parlant_server

__all__ = ["Prepare", "ServerLifecycle"]

logger = logging.getLogger(__name__)

Prepare = Callable[[Any], Awaitable[tuple[Any, Any]]]
"""Runs in the server's configuration phase; returns ``(parlant agent, Application)``."""


class ServerLifecycle:
    """The live Parlant server and agent of one adapter, owned or borrowed."""

    def __init__(
        self,
        *,
        server: Any | None,
        agent: Any | None,
        nlp_service: Any | None,
        server_options: dict[str, Any],
    ) -> None:
        if agent is not None and server is None:
            raise ValueError("parlant_agent requires the server it lives on; pass server= as well")
        if server is not None and (nlp_service is not None or server_options):
            raise ValueError(
                "nlp_service/server_options configure the adapter-owned server; they cannot "
                "be combined with a caller-provided server="
            )
        self.server = server
        self.agent = agent
        self.owns_server = server is None
        self._creates_agent = agent is None
        self._options = dict(server_options)
        if nlp_service is not None:
            self._options["nlp_service"] = nlp_service
        self._running: AbstractAsyncContextManager[Any] | None = None

    async def start(self, prepare: Prepare) -> Any:
        """Run ``prepare`` on the borrowed server, or start an owned one with it; returns
        Parlant's ``Application``. A failed start releases what it had started."""
        try:
            if self.server is not None:
                self.agent, app = await prepare(self.server)
                return app
            prepared: list[tuple[Any, Any]] = []

            async def setup(server: Any) -> None:
                prepared.append(await prepare(server))

            running = running_parlant_server(setup=setup, **self._options)
            self.server = await running.__aenter__()
            self._running = running
            self.agent, app = prepared[0]
            return app
        except BaseException:
            await self.release()
            raise

    async def release(self) -> None:
        """Stop an owned server (and forget the agent made on it); a borrowed one runs on."""
        running, self._running = self._running, None
        if self.owns_server:
            self.server = None
        if self._creates_agent:
            self.agent = None
        if running is None:
            return
        try:
            await running.__aexit__(None, None, None)
        except Exception:
            logger.exception("Parlant server shutdown failed")
