"""The OpenCode server's HTTP API as this adapter uses it: sessions, prompts, permission
replies, MCP registration, and the ``/event`` SSE stream read by one task."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import httpx

__all__ = ["OpencodeClient"]

logger = logging.getLogger("band.adapters.opencode")
Handler = Callable[[dict[str, Any]], Awaitable[None]]


class OpencodeClient:
    """One connection to ``opencode serve``; ``events`` runs ``handler`` for each event."""

    def __init__(self, base_url: str, directory: str | None, workspace: str | None) -> None:
        headers: dict[str, str] = {}
        if directory:
            headers["x-opencode-directory"] = quote(directory, safe="/")
        if workspace:
            headers["x-opencode-workspace"] = workspace
        self.base_url = base_url.rstrip("/")
        self.http = httpx.AsyncClient(
            base_url=self.base_url, headers=headers, timeout=httpx.Timeout(30.0)
        )
        self.reader: asyncio.Task[None] | None = None
        self.ended = ""

    @property
    def alive(self) -> bool:
        return self.reader is not None and not self.reader.done()

    async def health(self) -> str:
        response = await self.http.get("/global/health")
        response.raise_for_status()
        return str(response.json().get("version") or "")

    async def create_session(self, title: str) -> str:
        response = await self.http.post("/session", json={"title": title})
        response.raise_for_status()
        return str(response.json()["id"])

    async def has_session(self, session_id: str) -> bool:
        response = await self.http.get(f"/session/{session_id}")
        if response.status_code == 404:
            return False
        response.raise_for_status()
        return True

    async def prompt(self, session_id: str, payload: dict[str, Any]) -> None:
        response = await self.http.post(f"/session/{session_id}/prompt_async", json=payload)
        response.raise_for_status()

    async def reply_permission(self, permission_id: str, reply: str) -> None:
        response = await self.http.post(f"/permission/{permission_id}/reply", json={"reply": reply})
        response.raise_for_status()

    async def abort(self, session_id: str) -> None:
        with contextlib.suppress(httpx.HTTPError):
            await self.http.post(f"/session/{session_id}/abort")

    async def register_mcp(self, name: str, url: str) -> str:
        """Register a remote MCP server; its status (``connected`` when it answered)."""
        body = {"name": name, "config": {"type": "remote", "url": url}}
        response = await self.http.post("/mcp", json=body)
        response.raise_for_status()
        return str((response.json().get(name) or {}).get("status") or "")

    def listen(self, handler: Handler) -> None:
        """Start reading ``/event`` into ``handler`` (once)."""
        if self.reader is None:
            self.reader = asyncio.create_task(self._read(handler))

    async def _read(self, handler: Handler) -> None:
        timeout = httpx.Timeout(None, connect=10.0)
        try:
            async with self.http.stream("GET", "/event", timeout=timeout) as response:
                response.raise_for_status()
                data: list[str] = []
                async for line in response.aiter_lines():
                    if line.startswith("data:"):
                        data.append(line[5:].removeprefix(" "))
                    elif not line and data:
                        raw, data = "\n".join(data), []
                        try:
                            event = json.loads(raw)
                        except ValueError:
                            logger.warning("Skipping a malformed OpenCode event: %s", raw[:200])
                            continue
                        if isinstance(event, dict):
                            await handler(event)
            self.ended = "the server closed its event stream"
        except httpx.HTTPError as exc:
            self.ended = f"its event stream failed: {exc}"
        logger.warning("OpenCode at %s: %s", self.base_url, self.ended)

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader
        await self.http.aclose()
