"""The real platform, in-process: for testing agents end to end with no network.

How it works: docs/internals/server.md, "LocalPlatform".

Needs the ``server`` extra (``pip install 'openband[server]'``); ``band.testing`` re-exports
``LocalPlatform`` and ``Identity`` lazily.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx


@dataclass(frozen=True)
class Identity:
    """A person or an agent on the local platform, with its API key."""

    id: str
    key: str
    handle: str
    name: str


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalPlatform:
    """``band_server`` on ``127.0.0.1`` in this event loop, on a throwaway SQLite database."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self._own_dir = data_dir is None
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="band-local-"))
        self.port = _free_port()
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self._app: Any = None

    @property
    def rest_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/v1/socket/websocket"

    async def __aenter__(self) -> LocalPlatform:
        try:
            import uvicorn

            from band_server.app import create_app
            from band_server.config import Settings
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise ImportError(
                "LocalPlatform needs the platform: pip install 'openband[server]'"
            ) from exc
        self._app = create_app(Settings(data_dir=self.data_dir, database_url=None, redis_url=None))
        config = uvicorn.Config(
            self._app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws_per_message_deflate=False,
        )
        self._server = uvicorn.Server(config)
        self._task = asyncio.create_task(self._server.serve())
        for _ in range(500):
            if self._server.started:
                return self
            if self._task.done():
                break
            await asyncio.sleep(0.01)
        await self.aclose()
        raise RuntimeError("the local platform did not start")

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop serving and remove the temporary data folder."""
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            await asyncio.wait_for(self._task, 15)
            self._task = None
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    # -- identities and rooms (written straight through the platform's services) ---------------

    async def person(self, handle: str, name: str | None = None) -> Identity:
        from band_server.services.identity import accounts
        from band_server.services.unit import write

        async with write(self._app.state.platform) as uow:
            user, key = await accounts.create_user(
                uow.session, name=name or handle.title(), handle=handle
            )
            return Identity(user.id, key, user.handle, user.name)

    async def agent(
        self, owner: Identity, name: str, description: str = "An agent under test"
    ) -> Identity:
        from band_server.services.identity import accounts
        from band_server.services.unit import write

        async with write(self._app.state.platform) as uow:
            user = await accounts.get_user(uow.session, owner.id)
            agent, key = await accounts.create_agent(
                uow.session, user, name=name, description=description
            )
            return Identity(agent.id, key, agent.handle, agent.name)

    async def room(self, owner: Identity, *members: Identity, title: str | None = None) -> str:
        """A room owned by a person, with ``members`` added (pushes ``room_added``)."""
        async with self._http(owner) as http:
            r = await http.post("/api/v1/me/chats", json={"chat": {"title": title}})
            r.raise_for_status()
            room_id = str(r.json()["data"]["id"])
            for member in members:
                body = {"participant": {"participant_id": member.id}}
                added = await http.post(f"/api/v1/me/chats/{room_id}/participants", json=body)
                added.raise_for_status()
        return room_id

    # -- talking as a person -------------------------------------------------------------------

    async def post(self, person: Identity, room_id: str, content: str, *mentions: Identity) -> str:
        """Post as a person; ``@handle`` in the text also mentions. Returns the message id."""
        body = {"message": {"content": content, "mentions": [{"id": m.id} for m in mentions]}}
        async with self._http(person) as http:
            r = await http.post(f"/api/v1/me/chats/{room_id}/messages", json=body)
            r.raise_for_status()
            return str(r.json()["data"]["id"])

    async def messages(self, person: Identity, room_id: str) -> list[dict[str, Any]]:
        """The room's messages and events, oldest first, as the human API shows them."""
        async with self._http(person) as http:
            r = await http.get(
                f"/api/v1/me/chats/{room_id}/messages", params={"limit": 200, "sort_order": "asc"}
            )
            r.raise_for_status()
            return list(r.json()["data"])

    def _http(self, who: Identity) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.rest_url, headers={"X-API-Key": who.key}, timeout=30)
