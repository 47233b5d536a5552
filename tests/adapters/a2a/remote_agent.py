"""A real A2A agent on a2a-sdk's server (``DefaultRequestHandler``, JSON-RPC routes, agent card).

What it does depends on the words it gets:

* ``question`` asks back (``input-required``: "Which colour?"); the next message in that task
  completes it ("You chose: ...");
* ``wait`` works until it is cancelled (``canceled``; ``cancelled`` lists the task);
* ``fail`` fails the task ("I cannot do that");
* anything else: a ``working`` status ("thinking"), then an artifact
  ``You said: <text> (turn N of this context)`` and ``completed``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from a2a.helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes.agent_card_routes import create_agent_card_routes
from a2a.server.routes.jsonrpc_routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Task,
    TaskState,
    TaskStatus,
)
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT
from starlette.applications import Starlette

from band.integrations.uvicorn_server import ManagedUvicornServer


@dataclass
class RemoteAgent(AgentExecutor):
    """The scripted agent; ``seen`` records each (context, text) it was sent."""

    seen: list[tuple[str, str]] = field(default_factory=list)
    turns: Counter[str] = field(default_factory=Counter)
    cancelled: list[str] = field(default_factory=list)
    working: asyncio.Event = field(default_factory=asyncio.Event)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        task_id, context_id = str(context.task_id), str(context.context_id)
        self.seen.append((context_id, text))
        self.turns[context_id] += 1
        if context.current_task is None:
            status = TaskStatus(state=TaskState.TASK_STATE_SUBMITTED)
            await event_queue.enqueue_event(Task(id=task_id, context_id=context_id, status=status))
        updater = TaskUpdater(event_queue, task_id, context_id)

        def say(words: str) -> Any:
            return new_text_message(words, context_id=context_id, task_id=task_id)

        asked = context.current_task is not None and (
            context.current_task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        )
        if asked:
            await updater.complete(say(f"You chose: {text.split()[-1]}"))
        elif "question" in text:
            await updater.requires_input(say("Which colour?"))
        elif "fail" in text:
            await updater.failed(say("I cannot do that"))
        elif "wait" in text:
            await updater.start_work(say("working on it"))
            self.working.set()
            try:
                await asyncio.Event().wait()  # until cancelled
            except asyncio.CancelledError:
                self._cancelled(task_id)
                raise
        else:
            await updater.start_work(say("thinking"))
            turn = self.turns[context_id]
            answer = f"You said: {text} (turn {turn} of this context)"
            await updater.add_artifact([_text_part(answer)], name="answer")
            await updater.complete()

    def _cancelled(self, task_id: str) -> None:
        if task_id not in self.cancelled:
            self.cancelled.append(task_id)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self._cancelled(str(context.task_id))
        updater = TaskUpdater(event_queue, str(context.task_id), str(context.context_id))
        await updater.cancel()


def _text_part(text: str) -> Any:
    from a2a.types import Part

    return Part(text=text)


def card(url: str, *, streaming: bool = True) -> AgentCard:
    return AgentCard(
        name="Remote Helper",
        description="A scripted A2A agent for tests",
        supported_interfaces=[
            AgentInterface(
                protocol_binding="JSONRPC", protocol_version=PROTOCOL_VERSION_CURRENT, url=url
            )
        ],
        version="1.0.0",
        capabilities=AgentCapabilities(streaming=streaming),
        skills=[AgentSkill(id="echo", name="echo", description="answers", tags=["test"])],
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
    )


class RemoteServer:
    """``RemoteAgent`` served on a loopback port; ``url`` is its base URL."""

    def __init__(self, *, streaming: bool = True, port: int = 0) -> None:
        self.agent = RemoteAgent()
        self.streaming = streaming
        self.port = port
        self.url = ""
        self._server: ManagedUvicornServer | None = None
        self._handler: DefaultRequestHandler | None = None

    async def __aenter__(self) -> RemoteServer:
        # The card names the URL, so the port is known first: bind 0, then serve the app there.
        import socket

        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        agent_card = card(self.url, streaming=self.streaming)
        self._handler = DefaultRequestHandler(
            agent_executor=self.agent, task_store=InMemoryTaskStore(), agent_card=agent_card
        )
        routes = [
            *create_agent_card_routes(agent_card),
            *create_jsonrpc_routes(self._handler, rpc_url="/"),
        ]
        self._server = ManagedUvicornServer(
            Starlette(routes=routes), host="127.0.0.1", port=self.port, sock=sock
        )
        self._sock = sock
        await self._server.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            await self._server.stop()
        if self._handler is not None:
            await self._handler.aclose()
        self._sock.close()
