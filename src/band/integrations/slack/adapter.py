"""``SlackAdapter``: a Band agent that also answers in Slack, wrapping the adapter that thinks.

How it works: docs/internals/sdk.md, "Slack adapter".

Band rooms and Slack threads (Events over HTTP or Socket Mode) both run ``inner``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Unpack

from band.converters.slack import SlackHistoryConverter
from band.core.exceptions import TurnResultAlreadyReported
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.turn import Turn
from band.core.types import (
    AdapterFeatures,
    AgentInput,
    FeatureKwargs,
    HistoryProvider,
    PlatformMessage,
)
from band.platform.rest import BandRestClient
from band.runtime.tools import AgentTools

from .config import SlackAdapterConfig, SlackTransport
from .history import thread_history
from .server import build_router
from .socket import SlackSocketListener, start_socket_listeners
from .threads import SlackThreads
from .tools import SLACK_SEND_MESSAGE_TOOL_NAME, SLACK_USER_PREFIX, SlackTeeingTools
from .types import SlackApp, SlackRoomBinding
from .web import ThinkingStatus, default_web_client, user_name

__all__ = ["SLACK_CONTEXT_NOTE", "SlackAdapter", "SlackAdapterConfig", "SlackTransport"]

logger = logging.getLogger("band.integrations.slack")
WebClientFactory = Callable[[SlackApp], Any]
SLACK_CONTEXT_NOTE = (
    "[Slack] This conversation comes from Slack. The person there is not a Band participant "
    f"and cannot be @-mentioned: answer them with {SLACK_SEND_MESSAGE_TOOL_NAME}(content=...). "
    "Use band_send_message(content, mentions=[...]) only to talk to Band peers in this room."
)
FAILED_NOTE = "Sorry, I could not answer that. (The Band room has the details.)"


class SlackAdapter(SimpleAdapter[Any]):
    """Wraps ``inner`` (the brain) and adds Slack (see the module docstring).

    Features default to the brain's; ``web_client_factory(app)`` builds the
    ``slack_sdk`` ``AsyncWebClient`` (tests point it at a stand-in).
    """

    def __init__(
        self,
        config: SlackAdapterConfig,
        *,
        inner: SimpleAdapter[Any],
        web_client_factory: WebClientFactory | None = None,
        rest_client: BandRestClient | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        try:
            import slack_sdk  # noqa: F401
        except ImportError as exc:
            raise ImportError(
                "SlackAdapter needs slack-sdk: pip install 'openband[slack]'"
            ) from exc
        # Judge the brain's features against what the brain supports, not this wrapper.
        self.SUPPORTED_EMIT = inner.SUPPORTED_EMIT  # type: ignore[misc]
        self.SUPPORTED_CAPABILITIES = inner.SUPPORTED_CAPABILITIES  # type: ignore[misc]
        super().__init__(
            history_converter=inner.history_converter or SlackHistoryConverter(), **features
        )
        if features:
            inner.apply_effective_features(self.features)
        else:
            self.features = inner.features
        self._inner = inner
        self.config = config
        self._apps = {app.slug: app for app in config.apps}
        self._factory = web_client_factory or default_web_client
        self._web_clients: dict[str, Any] = {}
        self._rest = rest_client
        self._owns_rest = rest_client is None
        self._router: Any = None
        self._listeners: list[SlackSocketListener] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._accepting = True
        self.threads = SlackThreads(lambda: self.rest, lambda: self.require_platform().api_key)
        self._bot_ids: dict[str, str | None] = {}

    # -- what wraps what ---------------------------------------------------------------------

    @property
    def inner(self) -> SimpleAdapter[Any]:
        return self._inner

    @property
    def judges_turns(self) -> bool:
        return self._inner.judges_turns

    @property
    def transport(self) -> SlackTransport:
        return self.config.transport

    @property
    def router(self) -> Any:
        """The Starlette router of the Events API (``/<slug>/events``), for ``"http"``."""
        if self.config.transport != "http":
            raise RuntimeError(
                "SlackAdapter.router exists for transport='http'; this adapter uses "
                f"transport={self.config.transport!r}"
            )
        if self._router is None:
            self._router = build_router(self.config.apps, dispatcher=self._dispatch_event)
        return self._router

    @property
    def rest(self) -> BandRestClient:
        if self._rest is None:
            raise RuntimeError("the Slack bridge's REST client exists once the agent started")
        return self._rest

    def apply_effective_features(self, features: AdapterFeatures) -> None:
        super().apply_effective_features(features)
        self._inner.apply_effective_features(features)

    def web_client(self, app: SlackApp) -> Any:
        """The app's ``AsyncWebClient`` (one per app)."""
        client = self._web_clients.get(app.slug)
        if client is None:
            client = self._web_clients[app.slug] = self._factory(app)
        return client

    # -- lifecycle ---------------------------------------------------------------------------

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        platform = self.require_platform()
        if self._rest is None:
            self._rest = BandRestClient(platform.rest_url, platform.api_key)
        self._inner.platform = platform
        await self._inner.on_started(agent_name, agent_description)
        self._accepting = True
        if self.config.transport == "socket":
            await start_socket_listeners(
                apps=self.config.apps,
                listeners=self._listeners,
                web_client_factory=self.web_client,
                dispatcher=self._dispatch_event,
            )
        logger.info("Slack bridge started (%d apps, %s)", len(self._apps), self.config.transport)

    async def wait_idle(self) -> None:
        """Until every Slack event taken so far has been handled."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        """Close the Socket Mode connections (the HTTP router belongs to its server)."""
        for listener in list(self._listeners):
            try:
                await listener.stop()
            finally:
                self._listeners.remove(listener)

    async def cleanup_all(self) -> None:
        self._accepting = False
        await self.close()
        for task in self._tasks:
            task.cancel()
        await self.wait_idle()
        try:
            await self._inner.dispose()
        finally:
            if self._owns_rest and self._rest is not None:
                await self._rest.aclose()
                self._rest = None

    async def on_cleanup(self, room_id: str) -> None:
        self.threads.forget(room_id)
        await self._inner.on_cleanup(room_id)

    # -- Band side ---------------------------------------------------------------------------

    async def on_event(self, inp: AgentInput) -> None:
        if inp.is_session_bootstrap:
            self.threads.rehydrate(inp.room_id, inp.history.raw)
        await super().on_event(inp)

    async def try_handle_control(self, msg: PlatformMessage, tools: AgentToolsProtocol) -> bool:
        return await self._inner.try_handle_control(msg, tools)

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Any,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        binding = self.threads.binding_of(room_id)
        app = self._apps.get(binding.app_slug) if binding is not None else None
        if binding is None or app is None:
            await self._inner.on_message(
                msg,
                tools,
                history,
                participants_msg,
                contacts_msg,
                is_session_bootstrap=is_session_bootstrap,
                room_id=room_id,
            )
            return
        teeing = self._tee(tools, app, binding)
        note = (
            f"{SLACK_CONTEXT_NOTE}\n\n{participants_msg}"
            if participants_msg
            else SLACK_CONTEXT_NOTE
        )
        async with self._thinking(app, binding):
            await self._inner.on_message(
                msg,
                teeing,
                history,
                note,
                contacts_msg,
                is_session_bootstrap=is_session_bootstrap,
                room_id=room_id,
            )

    # -- Slack side --------------------------------------------------------------------------

    async def _dispatch_event(self, app: SlackApp, payload: dict[str, Any]) -> None:
        """Take an event: handled in the background, so Slack's acknowledgement is immediate."""
        if not self._accepting:
            logger.warning("Slack app %s: an event arrived while stopping; dropped", app.slug)
            return
        task = asyncio.create_task(self._handle_event(app, payload))
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("A Slack event failed", exc_info=task.exception())

    async def _handle_event(self, app: SlackApp, payload: dict[str, Any]) -> None:
        event = payload.get("event")
        if not isinstance(event, dict) or event.get("bot_id") or event.get("subtype"):
            return  # bots (ourselves included) and edits, joins, ... are not questions
        kind = event.get("type")
        if kind == "app_mention" or (kind == "message" and event.get("channel_type") == "im"):
            await self._slack_turn(app, event)

    async def _slack_turn(self, app: SlackApp, event: dict[str, Any]) -> None:
        text, channel = str(event.get("text") or ""), str(event.get("channel") or "")
        ts = str(event.get("ts") or "")
        thread_ts = str(event.get("thread_ts") or ts)
        user = str(event.get("user") or "")
        if not (text and channel and ts):
            return
        binding = SlackRoomBinding(app.slug, channel, thread_ts)
        room_id, is_new = await self.threads.room_for(binding, user)
        slack = self.web_client(app)
        name = await user_name(slack, user)
        if self.config.mirror_slack_context:
            await self.threads.mirror(room_id, binding, user=user, name=name, ts=ts, text=text)
        msg = PlatformMessage(
            id=f"slack:{ts}",
            room_id=room_id,
            content=text,
            sender_id=f"{SLACK_USER_PREFIX}{user}",
            sender_type="User",
            sender_name=name or "Slack user",
            message_type="text",
            metadata={"slack_app_slug": app.slug, "slack_channel_id": channel, "slack_ts": ts},
            created_at=datetime.now(UTC),
        )
        own = await self._bot_id(app)
        raw = await thread_history(
            slack, binding, exclude_ts=ts, agent_name=self.agent_name, own_bot_id=own
        )
        async with self.threads.lock(room_id):  # Slack turns of a room run one at a time
            tools = await self._room_tools(room_id)
            inp = AgentInput(
                msg=msg,
                tools=self._tee(tools, app, binding),
                history=HistoryProvider(raw),
                participants_msg=SLACK_CONTEXT_NOTE,
                contacts_msg=None,
                is_session_bootstrap=is_new or bool(raw),
                room_id=room_id,
            )
            await self._run_turn(inp, app, binding)

    async def _run_turn(self, inp: AgentInput, app: SlackApp, binding: SlackRoomBinding) -> None:
        async with self._thinking(app, binding):
            try:
                await self._inner.run_judged_turn(inp, self._inner.convert_history(inp))
            except TurnResultAlreadyReported:
                await self._say_failed(app, binding)
            except Exception:
                logger.exception("Room %s: the Slack turn failed", inp.room_id)
                await self._say_failed(app, binding)

    async def _say_failed(self, app: SlackApp, binding: SlackRoomBinding) -> None:
        try:
            await self.web_client(app).chat_postMessage(
                channel=binding.channel, thread_ts=binding.thread_ts, text=FAILED_NOTE
            )
        except Exception as exc:
            logger.warning("Telling Slack about a failed turn failed: %s", exc)

    async def _room_tools(self, room_id: str) -> AgentTools:
        participants = await self.rest.get_participants(room_id)
        platform = self.require_platform()
        return AgentTools(
            room_id,
            self.rest,
            participants=participants,
            agent_id=platform.agent_id,
            agent_name=self.agent_name,
            features=self._inner.features,
            turn=Turn(),
        )

    async def _bot_id(self, app: SlackApp) -> str | None:
        """This app's own ``bot_id`` (``auth.test``, once): which thread messages are ours."""
        if app.slug not in self._bot_ids:
            try:
                answer = await self.web_client(app).auth_test()
                self._bot_ids[app.slug] = answer.get("bot_id")
            except Exception as exc:
                logger.warning("Slack app %s: auth.test failed: %s", app.slug, exc)
                return None
        return self._bot_ids[app.slug]

    def _tee(self, tools: AgentToolsProtocol, app: SlackApp, binding: SlackRoomBinding) -> Any:
        return SlackTeeingTools(
            wrap=tools,
            slack=self.web_client(app),
            binding=binding,
            write_tool_names=self.config.write_tool_names,
            show_tool_progress=self.config.show_tool_progress,
        )

    def _thinking(self, app: SlackApp, binding: SlackRoomBinding) -> ThinkingStatus:
        return ThinkingStatus(self.web_client(app), binding)
