"""``BandRestClient``: the agent's REST link to the platform (``/api/v1/agent/...``).

One ``httpx.AsyncClient`` is the single transport seam: pass
``transport=httpx.ASGITransport(app=server_app)`` to run against an in-process platform,
or ``httpx.MockTransport(handler)`` to script answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import httpx

from band._signatures import same_parameters_as
from band.core.exceptions import BandConnectionError
from band_protocol import WORKING_HEADER, AgentMe, ChatRoom, says_true

from ._http import HttpCore, error_from_response
from ._social import Page, SocialCalls, get_page
from ._workspace import WorkspaceCalls
from .errors import BandRestError

__all__ = [
    "ACTIVITY_TIMEOUT",
    "WORKING_HEADER",
    "BandRestClient",
    "BandRestError",
    "Claim",
    "MarkResult",
]

ACTIVITY_TIMEOUT = 2.0


class MarkResult(StrEnum):
    """How the platform answered a lifecycle mark (processing / processed / failed)."""

    OK = "ok"
    STOPPED = "stopped"
    NOT_FOUND = "not_found"
    REJECTED = "rejected"
    UNCONFIRMED = "unconfirmed"

    @property
    def ok(self) -> bool:
        return self is MarkResult.OK


def _classify_mark(response: httpx.Response) -> MarkResult:
    status = response.status_code
    if status == 204:
        return MarkResult.STOPPED
    if status == 200:
        try:
            data = response.json().get("data")
        except (ValueError, AttributeError):
            return MarkResult.UNCONFIRMED
        ok = isinstance(data, dict) and data.get("success") is not False
        return MarkResult.OK if ok else MarkResult.UNCONFIRMED
    error = error_from_response(response)
    if status == 404 and error.code == "not_found":
        return MarkResult.NOT_FOUND
    if (
        status == 422
        and error.code == "validation_error"
        and error.details.get("/processing_attempt")
    ):
        return MarkResult.REJECTED
    return MarkResult.UNCONFIRMED


@dataclass(frozen=True, slots=True)
class Claim:
    """How the platform answered a claim (``/processing``), and whether it started the
    working indicator with it (then the message's ``/processed`` or ``/failed`` ends it)."""

    result: MarkResult
    working: bool = False


class BandRestClient(SocialCalls, WorkspaceCalls):
    """Async client of the agent REST surface, authenticated with ``X-API-Key``.

    Non-2xx answers raise ``BandRestError``; an unreachable platform raises
    ``BandConnectionError`` after bounded retries. ``request_count`` counts HTTP attempts.
    """

    @same_parameters_as(HttpCore.__init__)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """``HttpCore``'s parameters: the platform's root, the key, the transport and retries."""
        self.http = HttpCore(*args, **kwargs)

    @classmethod
    def over(cls, http: HttpCore) -> BandRestClient:
        """A client sharing an existing HTTP core (its pool, key, retries)."""
        client = cls.__new__(cls)
        client.http = http
        return client

    @property
    def request_count(self) -> int:
        """HTTP attempts sent so far (retries included)."""
        return self.http.request_count

    @request_count.setter
    def request_count(self, value: int) -> None:
        self.http.request_count = value

    async def aclose(self) -> None:
        """Close the underlying connection pool."""
        await self.http.aclose()

    async def __aenter__(self) -> BandRestClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # identity and rooms

    async def get_me(self) -> AgentMe:
        """The calling agent (``GET /agent/me``)."""
        return AgentMe.model_validate(await self.http.call("GET", "/agent/me"))

    async def list_chats(
        self, page: int = 1, page_size: int = 100
    ) -> tuple[list[ChatRoom], dict[str, Any]]:
        """One page of the agent's rooms and its paging metadata."""
        params = {"page": page, "page_size": page_size}
        data, metadata = await get_page(self.http, "/agent/chats", params)
        return [ChatRoom.model_validate(item) for item in data], metadata

    async def get_chat(self, room_id: str) -> ChatRoom:
        """One room by id."""
        return ChatRoom.model_validate(await self.http.call("GET", f"/agent/chats/{room_id}"))

    async def create_chat(self, title: str | None = None, task_id: str | None = None) -> ChatRoom:
        """Create a room owned by the agent; the platform then pushes ``room_added``."""
        chat: dict[str, Any] = {"task_id": task_id}
        if title is not None:
            chat["title"] = title
        data = await self.http.call("POST", "/agent/chats", json={"chat": chat})
        return ChatRoom.model_validate(data)

    async def get_participants(self, room_id: str) -> list[dict[str, Any]]:
        """The room's roster as dicts (id, name, handle, type, role, status, ...)."""
        return list(await self.http.call("GET", f"/agent/chats/{room_id}/participants") or [])

    async def add_participant(
        self, room_id: str, participant_id: str, role: str | None = None
    ) -> dict[str, Any]:
        """Add an agent or person to the room."""
        participant: dict[str, Any] = {"participant_id": participant_id}
        if role is not None:
            participant["role"] = role
        path = f"/agent/chats/{room_id}/participants"
        return dict(await self.http.call("POST", path, json={"participant": participant}) or {})

    async def remove_participant(self, room_id: str, participant_id: str) -> dict[str, Any]:
        """Remove a participant from the room."""
        path = f"/agent/chats/{room_id}/participants/{participant_id}"
        return dict(await self.http.call("DELETE", path) or {})

    # messages and the delivery lifecycle

    async def get_next(self, room_id: str) -> dict[str, Any] | None:
        """The oldest message for this agent not yet processed, or None (204)."""
        data = await self.http.call("GET", f"/agent/chats/{room_id}/messages/next")
        return dict(data) if data else None

    async def _mark_answer(
        self,
        room_id: str,
        message_id: str,
        step: str,
        body: Any,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response | None:
        path = f"/agent/chats/{room_id}/messages/{message_id}/{step}"
        try:
            # No Idempotency-Key: a mark is idempotent on the platform (a replayed mark answers
            # unchanged), and a key would cost the platform two more writes per mark.
            return await self.http.send("POST", path, json=body, keyed=False, extra_headers=headers)
        except BandConnectionError:
            return None

    async def _mark(self, room_id: str, message_id: str, step: str, body: Any) -> MarkResult:
        response = await self._mark_answer(room_id, message_id, step, body)
        return MarkResult.UNCONFIRMED if response is None else _classify_mark(response)

    async def claim(self, room_id: str, message_id: str, *, working: bool = False) -> Claim:
        """Claim a message: open (or keep) a processing attempt; with ``working``, ask the
        platform to start the working indicator too (``Claim.working``: it did)."""
        headers = {WORKING_HEADER: "true"} if working else None
        response = await self._mark_answer(room_id, message_id, "processing", None, headers)
        if response is None:
            return Claim(MarkResult.UNCONFIRMED)
        result = _classify_mark(response)
        echoed = says_true(response.headers.get(WORKING_HEADER))
        return Claim(result, working and result.ok and echoed)

    async def mark_processing(self, room_id: str, message_id: str) -> MarkResult:
        """Claim a message: open (or keep) a processing attempt."""
        return (await self.claim(room_id, message_id)).result

    async def mark_processed(self, room_id: str, message_id: str) -> MarkResult:
        """Acknowledge a message handled successfully."""
        return await self._mark(room_id, message_id, "processed", None)

    async def mark_failed(self, room_id: str, message_id: str, error: str) -> MarkResult:
        """Record a failed attempt; a blank error text becomes ``Unknown error``."""
        text = error.strip() or "Unknown error"
        return await self._mark(room_id, message_id, "failed", {"error": text})

    async def get_context(
        self,
        room_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Page:
        """The agent's context in a room (its messages and those mentioning it), oldest first."""
        params = {"limit": limit, "cursor": cursor, "page": page, "page_size": page_size}
        return await get_page(self.http, f"/agent/chats/{room_id}/context", params)

    async def list_messages(
        self,
        room_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        sort_order: str | None = None,
        status: str | None = None,
    ) -> Page:
        """A keyset page of the room's messages addressed to the agent."""
        params = {"limit": limit, "cursor": cursor, "sort_order": sort_order, "status": status}
        return await get_page(self.http, f"/agent/chats/{room_id}/messages", params)

    async def send_activity(
        self,
        room_id: str,
        working: bool,
        *,
        timeout: float = ACTIVITY_TIMEOUT,  # noqa: ASYNC109 (one request's bound)
    ) -> bool | None:
        """Report the working indicator; returns the platform's ``working`` or None.

        Best effort: bounded by ``timeout`` seconds (2 by default), no retry, never raises.
        """
        path = f"/agent/chats/{room_id}/activity"
        try:
            response = await self.http.send(
                "POST",
                path,
                json={"working": working},
                retry=False,
                request_timeout=timeout,
            )
            if not response.is_success:
                return None
            data = response.json().get("data")
            return bool(data["working"]) if isinstance(data, dict) and "working" in data else None
        except Exception:
            return None

    async def post_message(
        self,
        room_id: str,
        content: str,
        mentions: list[dict[str, Any]],
        attachment_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        """Post a text message; returns ``{id, success, recipients}``."""
        message: dict[str, Any] = {"content": content, "mentions": mentions}
        if attachment_ids:
            message["attachment_ids"] = attachment_ids
        path = f"/agent/chats/{room_id}/messages"
        return dict(await self.http.call("POST", path, json={"message": message}) or {})

    async def post_event(
        self,
        room_id: str,
        content: str,
        message_type: str,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Post an event (thought, tool_call, tool_result, error, task); metadata may be null."""
        event = {"content": content, "message_type": message_type, "metadata": metadata}
        path = f"/agent/chats/{room_id}/events"
        return dict(await self.http.call("POST", path, json={"event": event}) or {})
