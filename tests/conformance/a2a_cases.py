"""The conformance case of ``A2AAdapter``: a real a2a-sdk server agent answering from the case's
:class:`FakeModel`, one conversation (model history) per A2A context.

One loopback server (its own thread and loop) hosts a remote agent per case under
``/a/<n>/``; the remote agents keep each context's messages, so a restarted Band agent that
continues its room's context hands the model the earlier conversation.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import itertools
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from band.core import SimpleAdapter
from band.testing import FakeModel, openai_client, serve_asgi

from .adapter_cases import AdapterCase

Scope = MutableMapping[str, Any]
# Each context's messages, shared by every remote (a restarted agent gets a new remote, as a
# new FakeModel, but continues its room's context there).
CONVERSATIONS: dict[str, list[dict[str, str]]] = {}
SKIPS = {
    "tool_events": "the remote A2A agent runs its own model loop; no Band tool events exist",
    "thoughts": "the remote A2A agent's text is its answer; A2A has no thought channel here",
    "custom_tools": "a remote A2A agent's tools are its own; the adapter offers it none",
    "model_error": "a remote agent's failure is relayed as the remote reported it (provider "
    "a2a, its own text), not as the runtime's generic failure",
}


def _remote_app(fake: FakeModel, url: str) -> Any:
    """A Starlette app: an A2A agent whose answer is the model's text for the context so far."""
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
        Part,
        Task,
        TaskState,
        TaskStatus,
    )
    from starlette.applications import Starlette

    class ModelAgent(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            task_id, context_id = str(context.task_id), str(context.context_id)
            status = TaskStatus(state=TaskState.TASK_STATE_SUBMITTED)
            await event_queue.enqueue_event(Task(id=task_id, context_id=context_id, status=status))
            updater = TaskUpdater(event_queue, task_id, context_id)
            messages = CONVERSATIONS.setdefault(context_id, [])
            messages.append({"role": "user", "content": f"[Alice]: {context.get_user_input()}"})
            try:
                answer = await openai_client(fake).chat.completions.create(
                    model="fake-model",
                    messages=messages,  # type: ignore[arg-type]
                )
            except Exception as exc:
                await updater.failed(updater.new_agent_message([Part(text=str(exc))]))
                return
            text = answer.choices[0].message.content or ""
            messages.append({"role": "assistant", "content": text})
            await updater.add_artifact([Part(text=text)], name="answer")
            await updater.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            await TaskUpdater(event_queue, str(context.task_id), str(context.context_id)).cancel()

    card = AgentCard(
        name="Model agent",
        description="An A2A agent answering from a scripted model",
        supported_interfaces=[
            AgentInterface(protocol_binding="JSONRPC", protocol_version="1.0", url=url)
        ],
        version="1.0.0",
        capabilities=AgentCapabilities(streaming=True),
        skills=[AgentSkill(id="chat", name="chat", description="answers", tags=["test"])],
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
    )
    handler = DefaultRequestHandler(
        agent_executor=ModelAgent(), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/")]
    return Starlette(routes=routes)


class _RemoteRouter:
    """ASGI: ``/a/<n>/...`` reaches the n-th remote agent (the prefix is cut off)."""

    def __init__(self) -> None:
        self._apps: dict[str, Any] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: contextlib.ExitStack | None = None
        self.origin = ""

    def url_for(self, fake: FakeModel) -> str:
        with self._lock:
            if self._server is None:
                self._server = contextlib.ExitStack()
                self.origin = self._server.enter_context(serve_asgi(self, "a2a-remotes"))
                atexit.register(self._server.close)
            key = str(next(self._ids))
            url = f"{self.origin}/a/{key}"
            self._apps[key] = _remote_app(fake, url)
        return url

    async def __call__(
        self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Any
    ) -> None:
        parts = str(scope.get("path", "")).split("/")
        app = self._apps.get(parts[2]) if len(parts) > 2 and parts[1] == "a" else None
        if scope["type"] != "http" or app is None:
            if scope["type"] == "http":
                await send({"type": "http.response.start", "status": 404, "headers": []})
                await send({"type": "http.response.body", "body": b"no such agent"})
            return
        rest = "/" + "/".join(parts[3:])
        await app({**scope, "path": rest, "raw_path": rest.encode()}, receive, send)


ROUTER = _RemoteRouter()


def a2a_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from band.integrations.a2a import A2AAdapter, A2AAdapterConfig

    return A2AAdapter(A2AAdapterConfig(remote_url=ROUTER.url_for(fake)), **features)


def a2a_cases() -> list[AdapterCase]:
    if importlib.util.find_spec("a2a") is None:
        return []
    return [AdapterCase("a2a", a2a_adapter, None, SKIPS)]
