"""``A2AGatewayAdapter``: Band agents (the gateway agent's peers) served to A2A clients.

The gateway is itself a Band agent. On start it lists its peers and serves each as an A2A
agent (``GatewayServer``). An A2A request becomes a message to that peer in a Band room the
gateway keeps for the request's ``context_id`` (created on first use, the peer added); the
A2A task is ``working`` while the peer's turn runs and ``completed`` with the peer's reply
to the gateway (``failed`` when the reply is an error, or none comes in time). The context
and room are kept in a ``task`` event, so a restarted gateway finds a context's room again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

from band._extras import needs_extra
from band.converters.a2a_gateway import GatewayHistoryConverter
from band.core.protocols import FAILURE_CODE_TIMEOUT
from band.core.types import PlatformMessage
from band.integrations._bridge import RestBridgeAdapter
from band.integrations._rooms import all_peers, own_room_histories
from band.protocol.contacts import Peer
from band.protocol.requests import (
    ChatEventRequest,
    ChatMessageRequest,
    ChatMessageRequestMentionsItem,
    ChatRoomRequest,
    ParticipantRequest,
)
from band.runtime.formatters import strip_leading_mentions
from band_sdk_core import AgentFailure

from ..protocol import snapshot_task
from .config import A2AGatewayAdapterConfig
from .server import GatewayServer
from .types import GatewaySessionState, PendingA2ATask

with needs_extra("the A2A gateway needs a2a-sdk", "a2a_gateway"):
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.types import Task, TaskState, TaskStatus

__all__ = ["A2AGatewayAdapter", "BandAgentExecutor", "GatewayRequest", "slugify"]

logger = logging.getLogger("band.integrations.a2a.gateway")
PROVIDER = "a2a-gateway"
CONTEXT_KEY = "gateway_context_id"
ROOM_KEY = "gateway_room_id"
ERROR_TEXT_LIMIT = 240


def slugify(name: str) -> str:
    """``"Sales Bot 2"`` -> ``"sales-bot-2"`` (the peer's path segment)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass
class GatewayRequest:
    """One A2A request in flight: the Band peer it goes to, its room and A2A context."""

    peer: Peer
    room_id: str
    context_id: str
    pending: PendingA2ATask


class BandAgentExecutor(AgentExecutor):
    """a2a-sdk's executor for one peer: runs each A2A request through the gateway."""

    def __init__(self, adapter: A2AGatewayAdapter, peer_slug: str) -> None:
        self.adapter = adapter
        self.peer_slug = peer_slug

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await self.adapter.execute_a2a(self.peer_slug, context, event_queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task or _working_task(context)
        await PendingA2ATask(task=task, event_queue=event_queue).cancel()


def _working_task(context: RequestContext) -> Task:
    status = TaskStatus(state=TaskState.TASK_STATE_WORKING)
    return Task(id=context.task_id, context_id=context.context_id, status=status)


class A2AGatewayAdapter(RestBridgeAdapter[GatewaySessionState, A2AGatewayAdapterConfig]):
    """Serves the gateway agent's Band peers as A2A agents (see the module docstring)."""

    config_model = A2AGatewayAdapterConfig
    history_converter_model = GatewayHistoryConverter

    def _setup(self) -> None:
        self._peers: dict[str, Peer] = {}
        self._peers_by_id: dict[str, Peer] = {}
        self._server: GatewayServer | None = None
        self._context_to_room: dict[str, str] = {}
        self._room_participants: dict[str, set[str]] = {}
        self._pending: dict[str, PendingA2ATask] = {}  # room -> request in flight
        self._scanned = False

    @property
    def server(self) -> GatewayServer | None:
        """The HTTP server, once started (``server.bound_port``, ``server.gateway_url``)."""
        return self._server

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        for peer in await all_peers(self.rest):
            self._peers[slugify(peer.name) or peer.id] = peer
            self._peers_by_id[peer.id] = peer
        self._server = GatewayServer(
            self._peers,
            self.config.gateway_url or "",
            self.config.port,
            lambda slug: BandAgentExecutor(self, slug),
            host=self.config.host,
        )
        await self._server.start()

    # -- Band side: the peer's reply -----------------------------------------------------------

    async def _relay(self, msg: PlatformMessage, room_id: str) -> None:
        pending = self._pending.get(room_id)
        if pending is None:
            logger.debug("Room %s: a message with no A2A request waiting; ignored", room_id)
            return
        text = strip_leading_mentions(msg.content)
        if msg.message_type == "error":
            failure = (
                (msg.metadata or {}).get("failure") if isinstance(msg.metadata, dict) else None
            )
            await pending.fail(text, failure=failure if isinstance(failure, dict) else None)
        elif msg.message_type in ("thought", "tool_call", "tool_result"):
            await pending.report_progress(text)
        else:
            await pending.complete_with_message(text)

    async def on_cleanup(self, room_id: str) -> None:
        pending = self._pending.pop(room_id, None)
        if pending is not None:
            await pending.fail("The Band room closed before the peer answered")

    async def cleanup_all(self) -> None:
        errors: list[Exception] = []
        for room_id, pending in list(self._pending.items()):
            try:
                await pending.fail("The gateway stopped before the peer answered")
            except Exception as exc:
                errors.append(exc)
            self._pending.pop(room_id, None)
        if self._server is not None:
            try:
                await self._server.stop()
                self._server = None
            except Exception as exc:
                errors.append(exc)
        await self.close_rest()
        if errors:
            raise ExceptionGroup("A2A gateway cleanup failed", errors)

    # -- A2A side: one request ---------------------------------------------------------------

    async def execute_a2a(
        self, peer_slug: str, context: RequestContext, event_queue: EventQueue
    ) -> None:
        """Ask the peer in the context's room; end the A2A task with its reply."""
        peer = self._peers.get(peer_slug) or self._peers_by_id.get(peer_slug)
        if peer is None:
            raise ValueError(f"Peer not found: {peer_slug}")
        context_id = str(context.context_id or uuid.uuid4())
        room_id = await self._room_for(context_id, peer)
        task = _working_task(context)
        request = GatewayRequest(peer, room_id, context_id, PendingA2ATask(task, event_queue))
        try:
            async with self._waiting(request):
                await event_queue.enqueue_event(snapshot_task(task))
                await self._remember_context(room_id, context_id)
                await self._ask(request, context.get_user_input())
                await request.pending.report_progress(f"Asked {peer.name} in Band")
                await self._await_reply(request)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            logger.exception("A2A request to %s failed (room %s)", peer.name, room_id)
            failure = AgentFailure(PROVIDER, _safe_text(exc), type(exc).__name__)
            await request.pending.fail("The A2A request failed", failure=failure.to_dict())

    @contextlib.asynccontextmanager
    async def _waiting(self, request: GatewayRequest) -> AsyncIterator[None]:
        """One request in flight per room: a second one on the same context is refused."""
        if request.room_id in self._pending:
            raise RuntimeError("The peer is still answering an earlier request in this context")
        self._pending[request.room_id] = request.pending
        try:
            yield
        finally:
            if self._pending.get(request.room_id) is request.pending:
                del self._pending[request.room_id]

    async def _ask(self, request: GatewayRequest, text: str) -> None:
        if not text.strip():
            raise ValueError("The A2A message has no text to send")
        peer = request.peer
        mention = ChatMessageRequestMentionsItem(id=peer.id, name=peer.name, handle=peer.handle)
        message = ChatMessageRequest(content=text, mentions=[mention])
        await self.rest.agent_api_messages.create_agent_chat_message(
            request.room_id, message=message
        )

    async def _await_reply(self, request: GatewayRequest) -> None:
        limit = self.config.response_timeout_s
        try:
            async with asyncio.timeout(limit):
                await request.pending.done.wait()
        except TimeoutError:
            message = f"No reply from {request.peer.name} within {limit:g} s"
            failure = AgentFailure(PROVIDER, message, FAILURE_CODE_TIMEOUT)
            await request.pending.fail(message, failure=failure.to_dict())

    # -- contexts and rooms ------------------------------------------------------------------

    async def _room_for(self, context_id: str, peer: Peer) -> str:
        """The context's room (found again after a restart), the peer added if it is new."""
        room_id = self._context_to_room.get(context_id) or await self._find_room(context_id)
        if room_id is None:
            created = await self.rest.agent_api_chats.create_agent_chat(chat=ChatRoomRequest())
            room_id = str(created.data.id)
            self._context_to_room[context_id] = room_id
            self._room_participants[room_id] = set()
        members = self._room_participants.get(room_id)
        if members is None:  # a room found again: ask who is in it
            listed = await self.rest.agent_api_participants.list_agent_chat_participants(room_id)
            members = self._room_participants[room_id] = {str(p.id) for p in listed.data}
        if peer.id not in members:
            await self.rest.agent_api_participants.add_agent_chat_participant(
                room_id, participant=ParticipantRequest(participant_id=peer.id, role="member")
            )
            members.add(peer.id)
        return room_id

    async def _find_room(self, context_id: str) -> str | None:
        """Read the gateway's rooms once for the contexts their ``task`` events name."""
        if not self._scanned:
            self._scanned = True
            async for items in own_room_histories(self.rest):
                self._rehydrate(GatewayHistoryConverter().convert(items))
        return self._context_to_room.get(context_id)

    async def _remember_context(self, room_id: str, context_id: str) -> None:
        event = ChatEventRequest(
            content="A2A gateway context",
            message_type="task",
            metadata={CONTEXT_KEY: context_id, ROOM_KEY: room_id},
        )
        await self.rest.agent_api_events.create_agent_chat_event(room_id, event=event)

    def _rehydrate(self, history: GatewaySessionState) -> None:
        for context_id, room_id in history.context_to_room.items():
            self._context_to_room.setdefault(context_id, room_id)
        for room_id, members in history.room_participants.items():
            self._room_participants.setdefault(room_id, set()).update(members)


def _safe_text(exc: BaseException) -> str:
    """An error's text for an outside caller: credentials masked, length bounded."""
    text = str(exc).strip() or type(exc).__name__
    text = re.sub(r"(?i)(bearer\s+|api[_-]?key[\"':= ]+)[A-Za-z0-9._\-]+", r"\1***", text)
    return text if len(text) <= ERROR_TEXT_LIMIT else text[: ERROR_TEXT_LIMIT - 3] + "..."
