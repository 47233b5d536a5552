"""``BandLink``: the agent's connection to the platform (Phoenix socket + REST client).

How it works: docs/internals/sdk.md, "The agent's link to the platform".

Yields the pushes of the agent's and its rooms' topics as typed events, in arrival order;
``link.rest`` is the namespaced client host plugins call, ``link.api`` the runtime's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx

from band.client.rest import AsyncRestClient
from band.core.exceptions import AgentAlreadyRunningError, BandConnectionError
from band.core.types import ConflictPolicy, PlatformConnection
from band_protocol import PayloadValidationError, validate_event_payload
from band_protocol.socket import CLAIM_ON_PUSH_PARAM, AgentControl

from .event import (
    PlatformEvent,
    ReconnectedEvent,
    WebSocketDisconnectedEvent,
    WebSocketDisconnectReason,
    event_from_push,
)
from .message_lifecycle import ActionablePage, MessageLifecycle, SettlementResult
from .rest import BandRestClient
from .socket import JoinError, PhoenixSocket, SocketError, SocketTimings, UpgradeRejected
from .subscriptions import SubscriptionManager
from .urls import DEFAULT_REST_URL, DEFAULT_WS_URL

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "ActionablePage",
    "BandLink",
    "PlatformEvent",
    "SettlementResult",
]

log = logging.getLogger("band.platform.link")

MAX_ROOM_PAGES = 50

_ROOM_EVENTS = {"room_added", "room_removed"}
_PARTICIPANT_EVENTS = {"participant_added", "participant_removed", "room_deleted"}
_CONTROL_EVENTS = {"agent.control", "supersede"}
_CONTACT_EVENTS = {
    "contact_request_received",
    "contact_request_updated",
    "contact_added",
    "contact_removed",
}
_END = object()
ControlHook = Callable[[AgentControl], Awaitable[None]]


class BandLink(MessageLifecycle):
    """Socket + REST for one agent; iterate it (``async for event in link``) for events."""

    def __init__(
        self,
        agent_id: str,
        api_key: str,
        ws_url: str = DEFAULT_WS_URL,
        rest_url: str = DEFAULT_REST_URL,
        conflict_policy: ConflictPolicy = ConflictPolicy.SUPERSEDE,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        api: BandRestClient | None = None,
        timings: SocketTimings | None = None,
        claim_on_push: str | None = None,
    ) -> None:
        """``claim_on_push`` (``claim`` or ``working``, ``band_protocol.CLAIM_ON_PUSH_PARAM``):
        ask the platform to claim a message with its push; only for a consumer that then
        skips its own claim of such a message (the runtime's ``TurnRunner``)."""
        self.agent_id = agent_id
        self.ws_url = ws_url
        self.rest_url = rest_url
        self.api_key = api_key
        self.conflict_policy = conflict_policy
        self.api = api or BandRestClient(rest_url, api_key, transport=transport)
        self.rest = AsyncRestClient(api_key=api_key, http=self.api.http)
        initial = {"on_conflict": "reject"} if conflict_policy == ConflictPolicy.REJECT else {}
        self.socket = PhoenixSocket(
            ws_url,
            headers={"x-api-key": api_key},
            params={"agent_id": agent_id}
            if claim_on_push is None
            else {"agent_id": agent_id, CLAIM_ON_PUSH_PARAM: claim_on_push},
            initial_params=initial,
            on_push=self._on_push,
            on_reconnect=self._on_reconnect,
            on_disconnect=self._on_disconnect,
            timings=timings,
        )
        self._events: asyncio.Queue[Any] = asyncio.Queue()
        self.subscriptions = SubscriptionManager(lambda: self.socket)
        self._watcher: asyncio.Task[None] | None = None
        self.dropped_invalid = 0
        self.superseded = False
        self.on_control: ControlHook | None = None
        self._control_lane: asyncio.Task[None] | None = None
        self._last_disconnect: WebSocketDisconnectReason | None = None

    # -- connection --------------------------------------------------------------------------

    @property
    def is_connected(self) -> bool:
        return self.socket.connected

    @property
    def last_disconnect_reason(self) -> WebSocketDisconnectReason | None:
        """Why the socket last dropped (``reason``, ``retryable``), None before any drop."""
        return self._last_disconnect

    def to_platform_connection(self, agent_id: str) -> PlatformConnection:
        """How an adapter reaches the platform as ``agent_id`` (``adapter.platform``)."""
        return PlatformConnection(agent_id, self.api_key, self.rest_url, self.ws_url)

    async def connect(self) -> None:
        """Open the socket and join the agent's control and rooms topics."""
        try:
            await self.socket.connect()
        except UpgradeRejected as exc:
            if exc.rejection.is_conflict:
                raise AgentAlreadyRunningError(
                    f"Agent {self.agent_id} already has a live connection to the platform "
                    f"({exc.rejection.message or 'connection_conflict'}); stop the other "
                    "process or use AgentConfig(conflict_policy=ConflictPolicy.SUPERSEDE)."
                ) from exc
            raise BandConnectionError(str(exc)) from exc
        except SocketError as exc:
            raise BandConnectionError(str(exc)) from exc
        try:
            await self.socket.join(f"agent_control:{self.agent_id}")
        except JoinError as exc:
            await self.socket.close()
            raise BandConnectionError(str(exc)) from exc
        await self.subscribe_agent_rooms(self.agent_id)
        self._watcher = asyncio.create_task(self._watch_socket(), name="band-link-watch")
        log.info("Connected to platform")

    async def disconnect(self) -> None:
        """Leave every topic, close the socket and the REST client; iteration then ends."""
        self.subscriptions.end_session()
        if self._control_lane is not None:
            self._control_lane.cancel()
        if self.socket.connected:
            await self.subscriptions.leave_all(self.socket)
            await self.socket.leave(f"agent_control:{self.agent_id}")
        await self.socket.close()
        if self._watcher is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
        await self.api.aclose()
        log.info("Disconnected from platform")

    async def run_forever(self, *, install_signal_handlers: bool = True) -> None:
        """Wait until the socket ends (stop, supersede, SIGINT/SIGTERM); raise on a failure."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        installed: list[signal.Signals] = []
        if install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(sig, stop.set)
                    installed.append(sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass  # not the main thread, or no signal support
        closed = asyncio.ensure_future(self.socket.wait_closed())
        stopped = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({closed, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if closed.done():
                try:
                    closed.result()
                except SocketError as exc:
                    raise BandConnectionError(str(exc)) from exc
        finally:
            for task in (closed, stopped):
                task.cancel()
            for sig in installed:
                loop.remove_signal_handler(sig)

    async def _watch_socket(self) -> None:
        with contextlib.suppress(Exception):
            await self.socket.wait_closed()
        self._events.put_nowait(_END)

    # -- subscriptions -----------------------------------------------------------------------

    async def subscribe_agent_rooms(self, agent_id: str) -> None:
        """Receive ``room_added`` / ``room_removed`` for ``agent_id`` (joined by ``connect``)."""
        await self.subscriptions.subscribe_agent_rooms(self.socket, agent_id)

    async def subscribe_agent_contacts(self, agent_id: str) -> None:
        """Receive contact requests and contact changes for ``agent_id``."""
        await self.subscriptions.subscribe_agent_contacts(self.socket, agent_id)

    async def unsubscribe_agent_contacts(self) -> None:
        """Stop receiving contact events."""
        await self.subscriptions.unsubscribe_agent_contacts(self.socket)

    async def list_room_ids(self) -> list[str]:
        """Every room the agent is in (``GET /agent/chats``, all pages, at most 50)."""
        ids: list[str] = []
        page = 1
        while True:
            rooms, meta = await self.api.list_chats(page=page, page_size=100)
            ids.extend(room.id for room in rooms)
            total = meta.get("total_pages")
            if not isinstance(total, int) or page >= total or page >= MAX_ROOM_PAGES:
                return ids
            page += 1

    def is_room_subscribed(self, room_id: str) -> bool:
        return self.subscriptions.is_room_subscribed(room_id)

    @property
    def rooms(self) -> frozenset[str]:
        return self.subscriptions.rooms

    async def subscribe_room(self, room_id: str) -> bool:
        """Join the room's two topics; on refusal retry in the background (1..16 s)."""
        return await self.subscriptions.subscribe_room(self.socket, room_id)

    async def unsubscribe_room(self, room_id: str) -> None:
        """Leave the room's topics and forget the room."""
        await self.subscriptions.unsubscribe_room(self.socket, room_id)

    # -- events ------------------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[PlatformEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[PlatformEvent]:
        while True:
            event = await self.next_event()
            if event is None:
                return
            yield event

    async def next_event(self) -> PlatformEvent | None:
        """The next event, waiting for one; None once the link has ended for good."""
        item = await self._events.get()
        if item is _END:
            self._events.put_nowait(_END)  # every later reader sees the end too
            return None
        event: PlatformEvent = item
        return event

    def queue_event(self, event: PlatformEvent) -> None:
        """Put an event on the stream as if the platform had pushed it."""
        self._events.put_nowait(event)

    def _on_push(self, topic: str, event: str, payload: dict[str, Any]) -> None:
        kind, _, ident = topic.partition(":")
        if event == "event_created":
            log.debug("Ignored event_created on %s", topic)
            return
        if not self._handled(kind, event):
            log.debug("No handler for %s on %s", event, topic)
            return
        try:
            payload = validate_event_payload(event, payload)
        except PayloadValidationError as exc:
            self.dropped_invalid += 1
            log.error("Dropped invalid %s on %s: %s", event, topic, exc)
            return
        if kind == "agent_rooms":
            room_id: str | None = payload["id"]
        elif kind == "agent_control":
            if event == "supersede":
                self._on_supersede(payload)
            elif self.on_control is not None:
                self._preempt(payload)
                return
            room_id = payload.get("room_id")
        elif kind == "agent_contacts":
            room_id = None
        else:
            room_id = ident
        self._queue_push(event, room_id, payload)

    def _queue_push(
        self, event: str, room_id: str | None, raw: dict[str, Any] | None = None
    ) -> None:
        typed = event_from_push(event, room_id, raw if raw is not None else {"id": room_id})
        if typed is not None:
            self.queue_event(typed)

    @staticmethod
    def _handled(kind: str, event: str) -> bool:
        if kind == "agent_control":
            return event in _CONTROL_EVENTS
        if kind == "agent_rooms":
            return event in _ROOM_EVENTS
        if kind == "chat_room":
            return event == "message_created"
        if kind == "room_participants":
            return event in _PARTICIPANT_EVENTS
        if kind == "agent_contacts":
            return event in _CONTACT_EVENTS
        return False

    def _preempt(self, payload: dict[str, Any]) -> None:
        """Hand a control to ``on_control`` after the ones before it (never in the queue)."""
        hook, before = self.on_control, self._control_lane
        assert hook is not None  # nosec B101 # narrows for mypy: only called when a hook is set
        control = AgentControl.model_validate(payload)

        async def apply() -> None:
            if before is not None:
                with contextlib.suppress(BaseException):
                    await before
            try:
                await hook(control)
            except Exception:
                log.exception("on_control failed for %s", control.mode)

        self._control_lane = asyncio.ensure_future(apply())

    def _on_supersede(self, payload: dict[str, Any]) -> None:
        if payload.get("retryable") is True:
            log.warning("Superseded (retryable): %s", payload.get("message"))
            return
        self.superseded = True
        log.warning("Superseded by another connection: %s", payload.get("message"))
        self.socket.terminate(f"superseded: {payload.get('reason')}")

    def _on_disconnect(self, code: int | None, reason: str) -> None:
        final = code == 1008
        detail = WebSocketDisconnectReason(reason=reason, message=reason, retryable=not final)
        self._last_disconnect = detail
        raw = {"code": code, "reason": reason}
        self.queue_event(WebSocketDisconnectedEvent(payload=detail, raw=raw))

    async def _on_reconnect(self) -> None:
        try:
            current = set(await self.list_room_ids())
        except Exception as exc:
            log.warning("Room reconciliation after reconnect failed: %s", exc)
            current = set(self.rooms)
        wanted = self.rooms
        for room_id in sorted(current - wanted):
            self._queue_push("room_added", room_id)
        for room_id in sorted(wanted - current):
            self._queue_push("room_removed", room_id)
        await self.subscriptions.rejoin_rooms(self.socket, current)
        log.info("Reconnected to platform")
        self.queue_event(ReconnectedEvent())
