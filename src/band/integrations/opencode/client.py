"""The OpenCode server's HTTP API as the adapter uses it (``OpencodeClientProtocol``), and
``HttpOpencodeClient``, its implementation over httpx.

Sessions, prompts sent without waiting (``prompt_async``), replies to permission asks and
questions, aborts, remote MCP servers, and the ``/event`` SSE stream (resumed after the
last event id it saw). A directory and workspace go with every request, as headers and as
query parameters.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any, Literal, Protocol, TypedDict, Unpack
from urllib.parse import quote

import httpx

__all__ = ["ApprovalReply", "HttpOpencodeClient", "OpencodeClientProtocol", "PromptOptions"]

logger = logging.getLogger(__name__)

ApprovalReply = Literal["once", "always", "reject"]


class PromptOptions(TypedDict, total=False):
    """What a prompt may carry besides its parts; empty ones are not sent."""

    system: str | None
    model: dict[str, str] | None
    agent: str | None
    variant: str | None
    tools: dict[str, bool] | None


# The server sends a heartbeat well within this; longer silence means the stream is gone.
_EVENT_SILENCE_S = 60.0


class OpencodeClientProtocol(Protocol):
    """What the OpenCode adapter calls on a server (a fake implements it in tests)."""

    async def create_session(self, *, title: str | None = None) -> dict[str, Any]: ...

    async def get_session(self, session_id: str) -> dict[str, Any]: ...

    async def health(self) -> None: ...

    async def prompt_async(
        self, session_id: str, *, parts: list[dict[str, Any]], **options: Unpack[PromptOptions]
    ) -> None: ...

    async def reply_permission(
        self, permission_id: str, *, reply: ApprovalReply, message: str | None = None
    ) -> None: ...

    async def reply_question(self, request_id: str, *, answers: list[list[str]]) -> None: ...

    async def abort_session(self, session_id: str) -> None: ...

    async def register_mcp_server(self, *, name: str, url: str) -> dict[str, Any]: ...

    async def disconnect_mcp_server(self, name: str) -> None: ...

    def iter_events(self) -> AsyncIterator[dict[str, Any]]: ...

    async def close(self) -> None: ...


class HttpOpencodeClient(OpencodeClientProtocol):
    """``OpencodeClientProtocol`` over HTTP; ``version`` is set by ``health``."""

    def __init__(
        self,
        *,
        base_url: str,
        directory: str | None = None,
        workspace: str | None = None,
        timeout_s: float = 300.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers: dict[str, str] = {}
        self._params: dict[str, str] = {}
        if directory:
            # Header values are ASCII: a folder name beyond it goes percent-encoded.
            ascii_only = directory.isascii()
            headers["x-opencode-directory"] = directory if ascii_only else quote(directory)
            self._params["directory"] = directory
        if workspace:
            headers["x-opencode-workspace"] = workspace
            self._params["workspace"] = workspace
        self.base_url = base_url.rstrip("/")
        self.version = ""
        self._last_event_id: str | None = None
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(30.0, read=timeout_s),
            transport=transport,
        )

    async def _call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        response = await self._http.request(method, path, params=self._params, json=body)
        response.raise_for_status()
        return response

    async def health(self) -> None:
        """Raises when no healthy server answers; remembers its ``version``."""
        response = await self._call("GET", "/global/health")
        self.version = str(response.json().get("version") or "")

    async def create_session(self, *, title: str | None = None) -> dict[str, Any]:
        response = await self._call("POST", "/session", {"title": title} if title else None)
        return dict(response.json())

    async def get_session(self, session_id: str) -> dict[str, Any]:
        return dict((await self._call("GET", f"/session/{session_id}")).json())

    async def prompt_async(
        self, session_id: str, *, parts: list[dict[str, Any]], **options: Unpack[PromptOptions]
    ) -> None:
        body: dict[str, Any] = {"parts": parts, **{k: v for k, v in options.items() if v}}
        await self._call("POST", f"/session/{session_id}/prompt_async", body)

    async def reply_permission(
        self, permission_id: str, *, reply: ApprovalReply, message: str | None = None
    ) -> None:
        """``message`` goes back to the model with a rejection (the turn goes on)."""
        body = {"reply": reply, **({"message": message} if message else {})}
        await self._call("POST", f"/permission/{permission_id}/reply", body)

    async def reply_question(self, request_id: str, *, answers: list[list[str]]) -> None:
        await self._call("POST", f"/question/{request_id}/reply", {"answers": answers})

    async def abort_session(self, session_id: str) -> None:
        await self._call("POST", f"/session/{session_id}/abort")

    async def register_mcp_server(self, *, name: str, url: str) -> dict[str, Any]:
        """Add a remote MCP server; the answer maps its name to ``{"status": ...}``."""
        body = {"name": name, "config": {"type": "remote", "url": url}}
        return dict((await self._call("POST", "/mcp", body)).json())

    async def disconnect_mcp_server(self, name: str) -> None:
        await self._call("POST", f"/mcp/{name}/disconnect")

    async def iter_events(self) -> AsyncIterator[dict[str, Any]]:
        """The ``/event`` stream's JSON events until it ends; a later call resumes after
        the last event id seen (``Last-Event-ID``)."""
        headers = {"Last-Event-ID": self._last_event_id} if self._last_event_id else {}
        timeout = httpx.Timeout(None, connect=self._http.timeout.connect, read=_EVENT_SILENCE_S)
        request = self._http.stream(
            "GET", "/event", params=self._params, headers=headers, timeout=timeout
        )
        async with request as response:
            response.raise_for_status()
            frame = _Frame()
            async for line in response.aiter_lines():
                if line:
                    frame.add(line)
                    continue
                if frame.has_id:
                    self._last_event_id = frame.event_id or None
                event = frame.event()
                frame = _Frame()
                if event is not None:
                    yield event

    async def close(self) -> None:
        await self._http.aclose()


class _Frame:
    """One SSE frame being read: its ``event`` name, ``id`` and ``data`` lines."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.event_id = ""
        self.has_id = False
        self.data: list[str] = []

    def add(self, line: str) -> None:
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self.data.append(value)
        elif field == "event":
            self.name = value.strip() or None
        elif field == "id":
            self.event_id, self.has_id = value, True

    def event(self) -> dict[str, Any] | None:
        if not self.data:
            return None
        text = "\n".join(self.data)
        try:
            event = json.loads(text)
        except ValueError:
            logger.warning("Skipping an OpenCode event that is not JSON: %s", text[:200])
            return None
        if not isinstance(event, dict):
            return None
        if self.name and "type" not in event:
            event["type"] = self.name
        return event
