"""``ParlantAdapter``: Band rooms answered by a Parlant agent and its guidelines."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Unpack

from band.converters.parlant import ParlantHistoryConverter, ParlantMessages
from band.core.delivery import DeliveryFailedError
from band.core.protocols import AgentToolsProtocol, HistoryConverter
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage
from band.integrations.parlant.sessiontools import bound_session_tools
from band.runtime.custom_tools import CustomToolDef
from band_protocol import AgentFailure

from ._require import INSTALL_HINT, parlant_available, require_parlant_sdk
from .config import ConfigureCallback, ParlantAdapterConfig
from .guidelines import ADD_GUIDELINE_AFTER_START, GuidelineLedger, GuidelineSpec
from .history import inject_history, name_this_agent_in_history
from .lifecycle import ServerLifecycle
from .messages import (
    await_stopped_task,
    compose_user_message,
    live_preamble_tasks,
    post_user_message,
    process_session_tag,
)
from .responses import relay_agent_response
from .rooms import RoomSessions
from .tools import build_band_tools, build_custom_tools, check_custom_tools

__all__ = ["ParlantAdapter", "ParlantSessionTurn"]

logger = logging.getLogger("band.adapters.parlant.adapter")
PROVIDER = "parlant"
NOT_INITIALIZED = "Parlant Application not initialized"
CANCEL_REASON = "Band turn stopped"
CANCEL_WAIT = 10.0


@dataclass(frozen=True)
class ParlantSessionTurn:
    """The engine's background processing of one session's answer, to stop it."""

    background_tasks: Any
    session_id: Any

    async def cancel(self, reason: str) -> None:
        """Stop the session's processing and the preamble Parlant left running beside it."""
        preambles = live_preamble_tasks(str(self.session_id))
        await self.background_tasks.cancel(tag=process_session_tag(self.session_id), reason=reason)
        for task in preambles:
            task.cancel()
        for task in preambles:
            await await_stopped_task(task)


class ParlantAdapter(SimpleAdapter[ParlantMessages]):
    """Answers each mention through a Parlant agent; Parlant's engine owns the reply.

    By default the adapter runs its own Parlant server in-process (``nlp_service`` and
    ``server_options`` configure it). Pass ``server=`` (and optionally ``parlant_agent=``)
    to use a server your process runs; the adapter never stops what it did not start.
    ``additional_tools`` (``(InputModel, handler)`` pairs) are offered next to the Band
    tools by every guideline that keeps the default tools.

    An error inside Parlant's engine (e.g. the NLP service failing) fails the turn; the
    runtime reports it to the room once, like for every other adapter.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset()
    # Parlant's Band tool set has no memory tools: MEMORY is accepted and adds nothing.
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.CONTACTS, Capability.MEMORY, Capability.TASKS, Capability.FILES}
    )

    def __init__(
        self,
        config: ParlantAdapterConfig | None = None,
        *,
        history_converter: HistoryConverter[ParlantMessages] | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        nlp_service: Any | None = None,
        server_options: Mapping[str, Any] | None = None,
        server: Any | None = None,
        parlant_agent: Any | None = None,
        configure: ConfigureCallback | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            history_converter=history_converter or ParlantHistoryConverter(), **features
        )
        self.config = config or ParlantAdapterConfig()
        self._lifecycle = ServerLifecycle(
            server=server,
            agent=parlant_agent,
            nlp_service=nlp_service,
            server_options=dict(server_options or {}),
        )
        if parlant_agent is not None and (
            self.config.system_prompt is not None or self.config.custom_section is not None
        ):
            raise ValueError(
                "system_prompt/custom_section shape the adapter-created agent's description; "
                "they cannot be applied to a caller-provided parlant_agent="
            )
        self.additional_tools = list(additional_tools or ())
        check_custom_tools(self.additional_tools)
        if server is None and not parlant_available():
            raise ImportError(INSTALL_HINT)
        self._borrowed_agent = parlant_agent
        self._configure = configure
        self._guidelines = GuidelineLedger()
        self._tools: list[Any] | None = None
        self._app: Any | None = None
        self._sessions: RoomSessions | None = None
        self._started = False

    # declaring

    def add_guideline(
        self,
        condition: str | None = None,
        action: str | None = None,
        *,
        tools: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Queue a guideline, created on the Parlant agent when the agent starts.

        ``tools=None`` attaches the Band platform tools; ``tools=[]`` attaches none. Other
        keyword arguments go to Parlant's ``create_guideline`` unchanged.
        """
        if self._started:
            raise RuntimeError(ADD_GUIDELINE_AFTER_START)
        self._guidelines.add(GuidelineSpec(condition, action, tools, dict(kwargs)))

    # live objects

    @property
    def server(self) -> Any:
        server = self._lifecycle.server
        if server is None or not self._started:
            raise RuntimeError("Parlant server not running yet; it starts with the agent")
        return server

    @property
    def parlant_agent(self) -> Any:
        if self._lifecycle.agent is None or (not self._started and self._borrowed_agent is None):
            raise RuntimeError("Parlant agent not created yet; it starts with the agent")
        return self._lifecycle.agent

    @property
    def tools(self) -> list[Any]:
        """The Parlant tool entries built at startup (for ``configure`` callbacks)."""
        if self._tools is None:
            raise RuntimeError("Parlant tools not built yet; they are built when the agent starts")
        return list(self._tools)

    @property
    def judges_turns(self) -> bool:
        return False  # Parlant's engine owns its replies

    # lifecycle

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self._app = await self._lifecycle.start(self._prepare)
        agent: Any = self._lifecycle.agent
        self._sessions = RoomSessions(
            server=self._lifecycle.server, app=self._app, agent_id=agent.id
        )
        self._started = True
        logger.info(
            "Parlant SDK adapter started for agent: %s (parlant_agent_id=%s)",
            self._display_name(),
            agent.id,
        )

    def _display_name(self) -> str:
        return self.config.name or self.agent_name or "Assistant"

    def _instructions(self) -> str:
        if self.config.system_prompt is not None:
            return self.config.system_prompt
        text = self.config.description or self.agent_description or ""
        if self.config.custom_section:
            text = f"{text}\n\n{self.config.custom_section}" if text else self.config.custom_section
        return text

    async def _prepare(self, server: Any) -> tuple[Any, Any]:
        """Runs in the server's configuration phase: agent, tools, guidelines, configure."""
        require_parlant_sdk()
        if self._borrowed_agent is not None:
            agent = self._borrowed_agent
        else:
            agent = await server.create_agent(
                name=self._display_name(), description=self._instructions()
            )
        self._tools = build_band_tools(self.features)
        self._tools += build_custom_tools(self.additional_tools)
        if self.additional_tools and self._configure is None and not self._guidelines.any_default():
            logger.warning(
                "Custom tools are unreachable: no guideline keeps the default tools and there "
                "is no configure= callback to attach them"
            )
        await self._guidelines.apply(agent, self._tools)
        if self._configure is not None:
            await self._configure(server, agent)
        from parlant.core.application import Application

        return agent, server.container[Application]

    async def on_cleanup(self, room_id: str) -> None:
        if self._sessions is not None:
            session_id = self._sessions.session_of(room_id)
            if session_id is not None:
                await self._cancel_processing(session_id)
            self._sessions.forget(room_id)

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        """The runtime stopped the room's turn: stop Parlant working on it too."""
        session_id = self._sessions.session_of(room_id) if self._sessions is not None else None
        if session_id is not None:
            await self._cancel_processing(session_id)

    async def cleanup_all(self) -> None:
        self._sessions = None
        self._app = None
        try:
            await self._lifecycle.release()
        finally:
            if self._lifecycle.owns_server or self._borrowed_agent is None:
                self._guidelines.reset()
            self._started = False
        logger.info("Parlant adapter cleanup complete")

    # one message

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: ParlantMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if not self._started or self._sessions is None or self._app is None:
            await tools.send_failure(AgentFailure(PROVIDER, NOT_INITIALIZED))
            raise RuntimeError(NOT_INITIALIZED)
        sender = msg.sender_name or msg.sender_type or "Unknown"
        agent_name = self._display_name()
        roster = list(getattr(tools, "participants", None) or [])
        own_id = getattr(tools, "agent_id", None) or None
        session_id: Any = None
        try:
            fresh = not self._sessions.known(room_id)
            session_id = await self._sessions.session_for(room_id, customer_name=sender)
            if fresh and is_session_bootstrap and history:
                named = name_this_agent_in_history(
                    history, agent_id=own_id, agent_name=agent_name, participants=roster
                )
                count = await inject_history(
                    app=self._app, session_id=session_id, history=named, agent_name=agent_name
                )
                logger.info("Room %s: replayed %d history line(s) into Parlant", room_id, count)
            text = compose_user_message(
                msg=msg,
                participants_msg=participants_msg,
                contacts_msg=contacts_msg,
                agent_id=own_id,
                agent_name=agent_name,
                participants=roster,
            )
            with bound_session_tools(session_id=str(session_id), tools=tools):
                offset = await post_user_message(app=self._app, session_id=session_id, message=text)
                gave_up = await relay_agent_response(
                    app=self._app,
                    session_id=session_id,
                    room_id=room_id,
                    min_offset=offset,
                    tools=tools,
                    sender_name=sender,
                    timeout=self.config.response_timeout,
                    poll=self.config.response_poll,
                )
            if gave_up:
                await self._cancel_processing(session_id)
        except DeliveryFailedError as exc:
            raise exc.cause from exc
        except asyncio.CancelledError:
            # interrupted or stopped by the runtime: Parlant must not answer later
            if session_id is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.shield(self._cancel_processing(session_id))
            raise

    async def _cancel_processing(self, session_id: Any) -> None:
        """Best effort: stop Parlant still working on a turn we gave up on."""
        try:
            from parlant.core.background_tasks import BackgroundTaskService

            turn = ParlantSessionTurn(self.server.container[BackgroundTaskService], session_id)
            await asyncio.wait_for(turn.cancel(CANCEL_REASON), CANCEL_WAIT)
        except Exception as exc:
            logger.debug("Could not cancel Parlant processing for %s: %s", session_id, exc)
