"""``WebSocketClient``: the platform's socket as topic subscriptions with typed callbacks.

``async with WebSocketClient(ws_url, api_key, agent_id) as ws:`` connects (retrying transient
refusals; a 400/409 refusal raises ``WebSocketUpgradeError``), then ``join_*_channel`` joins a
topic and routes each pushed event, validated and typed (``MessageCreatedPayload`` ...), to
its callback, one event at a time per topic. A payload the wire rules refuse is dropped and
counted (``validation_error_count``). The socket reconnects and rejoins by itself; a supersede
or a terminal refusal ends it (``last_disconnect_reason``). Built on ``band.platform``'s
Phoenix socket, the one the ``Agent`` uses.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from band.core.types import ConflictPolicy
from band.logging_config import core_issues, trace_context_extra
from band.platform.event import WebSocketDisconnectReason
from band.platform.socket import PhoenixSocket, SocketTimings, UpgradeRejected

from . import payloads
from .errors import WebSocketUpgradeError
from .payloads import *  # noqa: F403  (its __all__, re-exported below)
from .payloads import KNOWN_UNHANDLED_EVENTS, PAYLOAD_MODELS, WireEvent

__all__ = ["SupersedeOutcome", "WebSocketClient"]
__all__ += payloads.__all__

logger = logging.getLogger(__name__)
Handler = Callable[[Any], Awaitable[None]]
_P = TypeVar("_P")
_On = Callable[[_P], Awaitable[None]]  # a callback taking one typed payload


async def _ignore(_: Any) -> None:
    return None


def _rooms(added: Handler, removed: Handler) -> dict[str, Handler]:
    """The handlers of a rooms topic (``agent_rooms:<agent>``, ``user_rooms:<user>``)."""
    return {WireEvent.ROOM_ADDED: added, WireEvent.ROOM_REMOVED: removed}


@dataclass(frozen=True)
class SupersedeOutcome:
    """What a supersede means for this connection: reconnect (after ``delay``) or end."""

    reconnect: bool
    delay: float | None = None


class _Topic:
    """One joined topic: its handlers and the worker that runs them in order."""

    def __init__(self, client: WebSocketClient, handlers: dict[str, Handler]) -> None:
        self.handlers = handlers
        self.queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
        self.worker = asyncio.create_task(self._run(client))

    async def _run(self, client: WebSocketClient) -> None:
        while True:
            event, payload = await self.queue.get()
            await client._handle_event(event, payload, self.handlers)


class WebSocketClient:
    """The socket of one agent (or person) with typed topic subscriptions."""

    def __init__(
        self,
        ws_url: str,
        api_key: str,
        agent_id: str | None = None,
        on_reconnect: Callable[[], Awaitable[None]] | None = None,
        on_disconnect: Callable[[Exception | None], Coroutine[Any, Any, None]] | None = None,
        session_policy: Any = None,
        conflict_policy: ConflictPolicy = ConflictPolicy.SUPERSEDE,
    ) -> None:
        self.ws_url = ws_url
        self.api_key = api_key
        self.agent_id = agent_id
        self._on_reconnect = on_reconnect
        self._on_disconnect = on_disconnect
        self._timings = session_policy if isinstance(session_policy, SocketTimings) else None
        self._conflict_policy = conflict_policy
        self.client: PhoenixSocket | None = None
        self._topics: dict[str, _Topic] = {}
        self._validation_error_count = 0
        self._last_disconnect_reason: WebSocketDisconnectReason | None = None
        self._ended = False

    @property
    def validation_error_count(self) -> int:
        """Events dropped because their payload broke the wire rules."""
        return self._validation_error_count

    def reset_validation_error_count(self) -> int:
        """The count so far, then zero."""
        count, self._validation_error_count = self._validation_error_count, 0
        return count

    @property
    def last_disconnect_reason(self) -> WebSocketDisconnectReason | None:
        return self._last_disconnect_reason

    @property
    def transport_ended(self) -> bool:
        return self._ended

    @property
    def joined_topics(self) -> frozenset[str]:
        return frozenset(t for t in self._topics if self.client and self.client.is_joined(t))

    def _require_client(self) -> PhoenixSocket:
        if self.client is None:
            raise RuntimeError("WebSocketClient is not connected; use it in `async with`")
        return self.client

    async def __aenter__(self) -> WebSocketClient:
        params = {"agent_id": self.agent_id} if self.agent_id else {}
        reject = self._conflict_policy == ConflictPolicy.REJECT
        self._ended = False
        self.client = PhoenixSocket(
            self.ws_url,
            headers={"x-api-key": self.api_key},
            params=params,
            initial_params={"on_conflict": "reject"} if reject else {},
            on_push=self._on_push,
            on_reconnect=self._on_reconnect,
            on_disconnect=self._disconnected,
            timings=self._timings,
        )
        try:
            await self.client.connect()
        except UpgradeRejected as exc:
            error = WebSocketUpgradeError.from_rejection(exc.rejection)
            self.record_terminal_disconnect(
                WebSocketDisconnectReason(
                    reason=error.code or f"http_{error.status_code}",
                    message=error.message,
                    retryable=False,
                    retry_after=error.retry_after,
                )
            )
            raise error from exc
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for topic in list(self._topics.values()):
            topic.worker.cancel()
        self._topics.clear()
        if self.client is not None:
            await self.client.close()

    def _disconnected(self, code: int | None, reason: str) -> None:
        if self._on_disconnect is not None:
            error = ConnectionError(f"WebSocket closed ({code}): {reason}")
            asyncio.get_running_loop().create_task(self._on_disconnect(error))

    def _on_push(self, topic: str, event: str, payload: dict[str, Any]) -> None:
        joined = self._topics.get(topic)
        if joined is not None:
            joined.queue.put_nowait((event, payload))

    async def _handle_event(
        self, event: str, payload: dict[str, Any], handlers: dict[str, Handler]
    ) -> None:
        handler = handlers.get(event)
        if handler is None:
            level = logging.DEBUG if event in KNOWN_UNHANDLED_EVENTS else logging.WARNING
            logger.log(
                level,
                "[WebSocket] Received event '%s' but no handler registered. Available handlers: %s",
                event,
                list(handlers),
            )
            return
        model = PAYLOAD_MODELS.get(event)
        value: Any = payload
        if model is not None:
            try:
                value = model.from_wire(event, payload)
            except ValueError as exc:
                issues = core_issues(exc)
                detail = "; ".join(f"{p}: {m}" for p, _c, m in issues) if issues else str(exc)
                logger.error(
                    "[WebSocket] Invalid %s payload: %s",
                    event,
                    detail,
                    extra=trace_context_extra(exc),
                )
                self._validation_error_count += 1
                return
        try:
            await handler(value)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("[WebSocket] Callback error for %s event", event)

    def record_terminal_disconnect(self, reason: WebSocketDisconnectReason) -> None:
        """Remember why the platform ended this connection, and end the transport."""
        self._last_disconnect_reason = reason
        self.end_transport()

    def end_transport(self) -> None:
        """End the socket for good: it will not reconnect."""
        if self._ended:
            return
        self._ended = True
        if self.client is not None:
            self.client.terminate("terminal platform disconnect")

    def handle_supersede(self, retryable: bool, retry_after_s: float | None) -> SupersedeOutcome:
        """A non-retryable supersede ends the connection; a retryable one waits, then retries."""
        if not retryable:
            return SupersedeOutcome(reconnect=False)
        return SupersedeOutcome(reconnect=True, delay=retry_after_s)

    async def _join(self, topic: str, handlers: Mapping[str, Handler | None]) -> dict[str, Any]:
        """Join ``topic`` routing each event to its handler (an event whose handler is None
        is not routed)."""
        logger.info("[WebSocket] Subscribing to topic: %s", topic)
        old = self._topics.pop(topic, None)
        if old is not None:
            old.worker.cancel()
        routed = {event: handler for event, handler in handlers.items() if handler is not None}
        self._topics[topic] = _Topic(self, routed)
        try:
            reply = await self._require_client().join(topic)
        except BaseException:
            self._topics.pop(topic).worker.cancel()
            raise
        logger.info("[WebSocket] Subscribed to topic: %s", topic)
        return reply

    async def _leave(self, topic: str) -> None:
        logger.info("[WebSocket] Unsubscribing from topic: %s", topic)
        joined = self._topics.pop(topic, None)
        if joined is not None:
            joined.worker.cancel()
        await self._require_client().leave(topic)

    async def join_agent_control_channel(
        self,
        agent_id: str,
        on_supersede: _On[payloads.SupersedePayload],
        on_control: _On[payloads.AgentControlPayload] | None = None,
    ) -> dict[str, Any]:
        """``agent_control:<agent>``: supersede, and interrupt/stop/play when ``on_control``."""
        return await self._join(
            f"agent_control:{agent_id}",
            {WireEvent.SUPERSEDE: on_supersede, WireEvent.AGENT_CONTROL: on_control},
        )

    async def join_agent_rooms_channel(
        self,
        agent_id: str,
        on_room_added: _On[payloads.RoomAddedPayload],
        on_room_removed: _On[payloads.RoomRemovedPayload],
    ) -> dict[str, Any]:
        return await self._join(f"agent_rooms:{agent_id}", _rooms(on_room_added, on_room_removed))

    async def join_chat_room_channel(
        self,
        chat_room_id: str,
        on_message_created: _On[payloads.MessageCreatedPayload],
        on_message_updated: _On[payloads.MessageCreatedPayload] | None = None,
    ) -> dict[str, Any]:
        """``chat_room:<room>``: new messages (and delivery updates when asked for)."""
        return await self._join(
            f"chat_room:{chat_room_id}",
            {
                WireEvent.MESSAGE_CREATED: on_message_created,
                WireEvent.MESSAGE_UPDATED: on_message_updated,
            },
        )

    async def join_user_rooms_channel(
        self,
        user_id: str,
        on_room_added: _On[payloads.RoomAddedPayload],
        on_room_removed: _On[payloads.RoomRemovedPayload],
    ) -> dict[str, Any]:
        return await self._join(f"user_rooms:{user_id}", _rooms(on_room_added, on_room_removed))

    async def join_room_participants_channel(
        self,
        chat_room_id: str,
        on_participant_added: _On[payloads.ParticipantAddedPayload],
        on_participant_removed: _On[payloads.ParticipantRemovedPayload],
        on_room_deleted: _On[payloads.RoomDeletedPayload] = _ignore,
    ) -> dict[str, Any]:
        return await self._join(
            f"room_participants:{chat_room_id}",
            {
                WireEvent.PARTICIPANT_ADDED: on_participant_added,
                WireEvent.PARTICIPANT_REMOVED: on_participant_removed,
                WireEvent.ROOM_DELETED: on_room_deleted,
            },
        )

    async def join_tasks_channel(
        self,
        user_id: str,
        on_task_created: _On[dict[str, Any]],
        on_task_updated: _On[dict[str, Any]],
    ) -> dict[str, Any]:
        return await self._join(
            f"tasks:{user_id}",
            {
                WireEvent.TASK_CREATED: on_task_created,
                WireEvent.TASK_UPDATED: on_task_updated,
            },
        )

    async def join_agent_contacts_channel(
        self,
        agent_id: str,
        on_contact_request_received: _On[payloads.ContactRequestReceivedPayload],
        on_contact_request_updated: _On[payloads.ContactRequestUpdatedPayload],
        on_contact_added: _On[payloads.ContactAddedPayload],
        on_contact_removed: _On[payloads.ContactRemovedPayload],
    ) -> dict[str, Any]:
        return await self._join(
            f"agent_contacts:{agent_id}",
            {
                WireEvent.CONTACT_REQUEST_RECEIVED: on_contact_request_received,
                WireEvent.CONTACT_REQUEST_UPDATED: on_contact_request_updated,
                WireEvent.CONTACT_ADDED: on_contact_added,
                WireEvent.CONTACT_REMOVED: on_contact_removed,
            },
        )

    async def leave_agent_control_channel(self, agent_id: str) -> None:
        await self._leave(f"agent_control:{agent_id}")

    async def leave_agent_rooms_channel(self, agent_id: str) -> None:
        await self._leave(f"agent_rooms:{agent_id}")

    async def leave_chat_room_channel(self, chat_room_id: str) -> None:
        await self._leave(f"chat_room:{chat_room_id}")

    async def leave_user_rooms_channel(self, user_id: str) -> None:
        await self._leave(f"user_rooms:{user_id}")

    async def leave_room_participants_channel(self, chat_room_id: str) -> None:
        await self._leave(f"room_participants:{chat_room_id}")

    async def leave_tasks_channel(self, user_id: str) -> None:
        await self._leave(f"tasks:{user_id}")

    async def leave_agent_contacts_channel(self, agent_id: str) -> None:
        await self._leave(f"agent_contacts:{agent_id}")

    async def run_forever(self, *, install_signal_handlers: bool = True) -> None:
        """Serve until the socket ends for good (or SIGINT/SIGTERM, when handlers are on)."""
        client = self._require_client()
        if not install_signal_handlers:
            await client.wait_closed()
            return
        import signal

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.end_transport)
        try:
            await client.wait_closed()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
