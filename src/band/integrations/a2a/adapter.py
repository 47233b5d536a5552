"""``A2AAdapter``: a remote A2A agent as a Band agent.

Each room is one A2A conversation (``context_id``). A mention becomes ``message/stream`` (or
``message/send``); the remote task's ``working`` statuses become ``thought`` events, its
answer (artifacts, else its status message) the reply to the sender, ``input-required`` a
question whose answer continues the same task, ``failed``/``rejected`` a failure. A STOP
cancels the remote task (``tasks/cancel``). The context, task and state are posted as a
``task`` event, so a restarted agent continues the same conversation (and a task that was
waiting for input, if the remote still has it open).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, ClassVar, Unpack

import httpx

from band._extras import needs_extra

with needs_extra("A2AAdapter needs a2a-sdk", "a2a"):
    from a2a.client import ClientConfig, ClientFactory
    from a2a.helpers import get_message_text, new_text_message
    from a2a.types import CancelTaskRequest, GetTaskRequest, Role, SendMessageRequest, TaskState

from band.converters.a2a import A2AHistoryConverter
from band.core.delivery import DeliveryFailedError, deliver_reply, reraise_delivery_cause
from band.core.exceptions import RoomExecutionStoppedError, TurnResultAlreadyReported
from band.core.protocols import GENERIC_PROVIDER_FAILURE_MESSAGE, AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage
from band.runtime.formatters import strip_leading_mentions
from band_sdk_core import AgentFailure

from .protocol import (
    RETRYABLE_TASK_FAILURE_STATES,
    TERMINAL_TASK_STATE_NAMES,
    TERMINAL_TASK_STATES,
    apply_task_stream_event,
    state_name,
    task_id_from_stream_event,
    task_response_text,
)
from .types import A2AAdapterConfig, A2ASessionState

__all__ = ["A2AAdapter", "A2ATaskRun"]

logger = logging.getLogger("band.integrations.a2a")
PROVIDER = "a2a"
# httpx's read timeout bounds the silence between two SSE events, not the whole turn.
SSE_READ_TIMEOUT_S = 300.0
CANCEL_TIMEOUT_S = 10.0


@dataclass
class A2ATaskRun:
    """The remote task a room's turn is running, and the client to cancel it through.

    ``task_id`` is None until the stream's first event names the task (``known`` is set
    then); ``finished`` once the remote reports a terminal state, so nothing is cancelled.
    """

    client: Any
    room_id: str
    task_id: str | None
    finished: bool = False
    known: asyncio.Event = field(default_factory=asyncio.Event, kw_only=True)

    def __post_init__(self) -> None:
        if self.task_id is not None:
            self.known.set()


class A2AAdapter(SimpleAdapter[A2ASessionState]):
    """Forwards each mention to a remote A2A agent and posts its answers (module docstring)."""

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset()
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset()

    def __init__(self, config: A2AAdapterConfig, **features: Unpack[FeatureKwargs]) -> None:
        super().__init__(history_converter=A2AHistoryConverter(), **features)
        self.config = config
        self._client: Any = None
        self._http: httpx.AsyncClient | None = None
        self._contexts: dict[str, str] = {}  # room -> A2A context_id
        self._tasks: dict[str, str] = {}  # room -> task to continue (waiting for input)
        self._snapshots: dict[tuple[str, str], Any] = {}  # (room, task) -> Task

    @property
    def judges_turns(self) -> bool:
        """The remote agent owns its answers: a turn is not judged."""
        return False

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        headers = self.config.auth.to_headers() if self.config.auth else {}
        self._http = httpx.AsyncClient(
            headers=headers, timeout=httpx.Timeout(10.0, read=SSE_READ_TIMEOUT_S)
        )
        factory = ClientFactory(
            ClientConfig(streaming=self.config.streaming, httpx_client=self._http)
        )
        self._client = await factory.create_from_url(self.config.remote_url)
        logger.info("A2A agent at %s (streaming=%s)", self.config.remote_url, self.config.streaming)

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: A2ASessionState,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if self._client is None:
            raise RuntimeError("A2AAdapter has not started (on_started creates its client)")
        if is_session_bootstrap and history:
            await self._rehydrate(room_id, history)
        message = new_text_message(
            strip_leading_mentions(msg.content),
            role=Role.ROLE_USER,
            context_id=self._contexts.get(room_id),
            task_id=self._tasks.get(room_id),
        )
        sender = {"id": msg.sender_id, "name": msg.sender_name or ""}
        run = A2ATaskRun(self._client, room_id, self._tasks.get(room_id))
        consumer = asyncio.create_task(self._consume(room_id, run, message, tools, sender))
        try:
            await asyncio.shield(consumer)  # a STOP cancels this turn, not the stream yet
        except asyncio.CancelledError:
            await asyncio.shield(self._stop_remote(room_id, run, consumer))
            raise
        except (TurnResultAlreadyReported, RoomExecutionStoppedError):
            raise
        except DeliveryFailedError as exc:
            reraise_delivery_cause(exc)
        except Exception as exc:
            logger.exception("Room %s: the A2A agent failed", room_id)
            await tools.send_failure(AgentFailure(PROVIDER, GENERIC_PROVIDER_FAILURE_MESSAGE))
            raise TurnResultAlreadyReported(f"A2A agent error: {exc}") from exc

    async def _consume(
        self,
        room_id: str,
        run: A2ATaskRun,
        message: Any,
        tools: AgentToolsProtocol,
        sender: dict[str, str],
    ) -> None:
        async for event in self._client.send_message(SendMessageRequest(message=message)):
            await self._on_event(room_id, run, event, tools, sender)

    async def _on_event(
        self,
        room_id: str,
        run: A2ATaskRun,
        event: Any,
        tools: AgentToolsProtocol,
        sender: dict[str, str],
    ) -> None:
        if event.HasField("message"):  # a direct answer, no task
            text = get_message_text(event.message)
            if text:
                await deliver_reply(tools, text, mentions=[sender])
            return
        task_id = task_id_from_stream_event(event)
        if task_id is None:
            return
        key = (room_id, task_id)
        task = apply_task_stream_event(self._snapshots.get(key), event)
        if task is None:
            return
        self._snapshots[key] = task
        run.task_id = task.id
        run.known.set()
        self._tasks[room_id] = task.id
        if task.context_id:
            self._contexts[room_id] = task.context_id
        terminal = task.status.state in TERMINAL_TASK_STATES
        run.finished = run.finished or terminal
        if event.HasField("artifact_update"):
            return  # folded in: the answer is posted when the task completes
        try:
            await self._deliver(task, tools, sender)
        finally:
            if terminal:
                self._forget_task(room_id, task.id)
                await self._post_state(tools, task)

    async def _deliver(self, task: Any, tools: AgentToolsProtocol, sender: dict[str, str]) -> None:
        """What one task state shows in the room."""
        state = task.status.state
        status_text = (
            get_message_text(task.status.message) if task.status.HasField("message") else ""
        )
        if state == TaskState.TASK_STATE_WORKING:
            if status_text:
                await _thought(tools, status_text)
        elif state == TaskState.TASK_STATE_INPUT_REQUIRED:
            await deliver_reply(
                tools, status_text or "Please provide more information.", mentions=[sender]
            )
            await self._post_state(tools, task)
        elif state == TaskState.TASK_STATE_COMPLETED:
            answer = task_response_text(task)
            if answer:
                await deliver_reply(tools, answer, mentions=[sender])
        elif state in TERMINAL_TASK_STATES:
            name = state_name(state)
            text = status_text or f"Task {name}"
            await tools.send_failure(AgentFailure(PROVIDER, text, name))
            if state in RETRYABLE_TASK_FAILURE_STATES:
                raise TurnResultAlreadyReported(text)

    async def _post_state(self, tools: AgentToolsProtocol, task: Any) -> None:
        """The room's A2A conversation as a ``task`` event (the resume state); best effort."""
        name = state_name(task.status.state)
        metadata = {
            "a2a_context_id": task.context_id,
            "a2a_task_id": task.id,
            "a2a_task_state": name,
        }
        try:
            await tools.send_event(f"A2A task {name}", "task", metadata)
        except RoomExecutionStoppedError:
            raise
        except Exception as exc:
            logger.warning("Could not post the A2A task state: %s", exc)

    async def _stop_remote(
        self, room_id: str, run: A2ATaskRun, consumer: asyncio.Task[None]
    ) -> None:
        """A stopped turn: learn its task from the stream (a STOP may come before the first
        event), cancel it unless it finished, and never continue it."""
        try:
            async with asyncio.timeout(CANCEL_TIMEOUT_S):
                revealed = asyncio.ensure_future(run.known.wait())
                await asyncio.wait({revealed, consumer}, return_when=asyncio.FIRST_COMPLETED)
                revealed.cancel()
                task_id = run.task_id
                if task_id is not None:
                    self._forget_task(room_id, task_id)
                if task_id is not None and not run.finished:
                    await run.client.cancel_task(CancelTaskRequest(id=task_id))
                    logger.info("Room %s: cancelled A2A task %s", room_id, task_id)
        except Exception as exc:
            logger.warning("Room %s: could not cancel the A2A task: %s", room_id, exc)
        finally:
            consumer.cancel()
            with contextlib.suppress(BaseException):
                await consumer

    def _forget_task(self, room_id: str, task_id: str) -> None:
        self._snapshots.pop((room_id, task_id), None)
        if self._tasks.get(room_id) == task_id:
            del self._tasks[room_id]

    async def _rehydrate(self, room_id: str, state: A2ASessionState) -> None:
        """Continue the room's conversation, and its task if the remote still has it open."""
        if state.context_id:
            self._contexts[room_id] = state.context_id
        if not state.task_id or state.task_state in TERMINAL_TASK_STATE_NAMES:
            return
        try:
            task = await self._client.get_task(GetTaskRequest(id=state.task_id))
        except Exception as exc:
            logger.info("Room %s: A2A task %s is gone: %s", room_id, state.task_id, exc)
            return
        if task.status.state not in TERMINAL_TASK_STATES:
            self._tasks[room_id] = task.id
            logger.info("Room %s: continuing A2A task %s", room_id, task.id)

    async def on_cleanup(self, room_id: str) -> None:
        self._contexts.pop(room_id, None)
        self._tasks.pop(room_id, None)
        for key in [k for k in self._snapshots if k[0] == room_id]:
            del self._snapshots[key]

    async def cleanup_all(self) -> None:
        client, self._client = self._client, None
        http, self._http = self._http, None
        try:
            if client is not None:
                await client.close()
        finally:
            if http is not None:
                await http.aclose()


async def _thought(tools: AgentToolsProtocol, text: str) -> None:
    try:
        await tools.send_event(text, "thought")
    except RoomExecutionStoppedError:
        raise
    except Exception as exc:
        logger.warning("Could not post a thought: %s", exc)
