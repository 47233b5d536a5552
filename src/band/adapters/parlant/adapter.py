"""``ParlantAdapter``: Band rooms answered by a Parlant agent and its guidelines."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Unpack

from band.core.delivery import DeliveryFailedError, relay_reply
from band.core.protocols import AgentToolsProtocol, HistoryConverter
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage
from band.runtime.custom_tools import CustomToolDef
from band_protocol import AgentFailure

from ._require import INSTALL_HINT, parlant_available, require_parlant_sdk
from .bindings import bind_session_tools
from .config import ConfigureCallback, ParlantAdapterConfig
from .guidelines import ADD_GUIDELINE_AFTER_START, GuidelineLedger, GuidelineSpec
from .history import ParlantHistoryConverter
from .replies import wait_for_reply
from .server import ServerLifecycle
from .sessions import RoomSessions
from .tools import build_band_tools, build_custom_tools, check_custom_tools, tool_names_for

__all__ = ["ParlantAdapter"]

logger = logging.getLogger("band.adapters.parlant.adapter")
PROVIDER = "parlant"
NOT_INITIALIZED = "Parlant Application not initialized"
CANCEL_REASON = "Band turn stopped"
CANCEL_WAIT = 10.0


class ParlantAdapter(SimpleAdapter[list[dict[str, Any]]]):
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
        {Capability.CONTACTS, Capability.MEMORY}
    )

    def __init__(
        self,
        config: ParlantAdapterConfig | None = None,
        *,
        history_converter: HistoryConverter[list[dict[str, Any]]] | None = None,
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
        if parlant_agent is not None and server is None:
            raise ValueError("parlant_agent requires the server it lives on; pass server= as well")
        if server is not None and (nlp_service is not None or server_options):
            raise ValueError(
                "nlp_service/server_options configure the adapter-owned server; they cannot "
                "be combined with a caller-provided server="
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
        options = dict(server_options or {})
        if nlp_service is not None:
            options["nlp_service"] = nlp_service
        self._lifecycle = ServerLifecycle(borrowed=server, options=options)
        self._borrowed_agent = parlant_agent
        self._agent: Any | None = None
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
        if self._agent is None:
            raise RuntimeError("Parlant agent not created yet; it starts with the agent")
        return self._agent

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
        await self._lifecycle.start(self._prepare)
        agent = self.parlant_agent
        assert self._app is not None  # nosec B101 # narrows for mypy: start() built the app
        self._sessions = RoomSessions(self._app, str(agent.id))
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

    async def _prepare(self, server: Any) -> None:
        """Runs in the server's configuration phase: agent, tools, guidelines, configure."""
        p = require_parlant_sdk()
        if self._borrowed_agent is not None:
            agent = self._borrowed_agent
        else:
            agent = await server.create_agent(
                name=self._display_name(), description=self._instructions()
            )
        self._agent = agent
        self._tools = build_band_tools(p, tool_names_for(self.features))
        self._tools += build_custom_tools(p, self.additional_tools)
        if self.additional_tools and self._configure is None and not self._guidelines.any_default():
            logger.warning(
                "Custom tools are unreachable: no guideline keeps the default tools and there "
                "is no configure= callback to attach them"
            )
        await self._guidelines.apply(agent, self._tools)
        if self._configure is not None:
            await self._configure(server, agent)
        from parlant.core.application import Application

        self._app = server.container[Application]

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
            await self._lifecycle.stop()
        finally:
            if self._lifecycle.owns_server or self._borrowed_agent is None:
                self._guidelines.reset()
                self._agent = None
            self._started = False
        logger.info("Parlant adapter cleanup complete")

    # one message

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[dict[str, Any]],
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
        session_id: str | None = None
        try:
            fresh = not self._sessions.known(room_id)
            session_id = await self._sessions.session_for(room_id, sender)
            if fresh and is_session_bootstrap and history:
                count = await self._sessions.inject_history(session_id, history)
                logger.info("Room %s: injected %d history line(s) into Parlant", room_id, count)
            text = _compose(msg, participants_msg, contacts_msg)
            with bind_session_tools(session_id, tools):
                offset = await self._sessions.post_customer_message(session_id, text)
                outcome = await wait_for_reply(
                    self._app,
                    session_id,
                    offset,
                    tools.turn,
                    timeout=self.config.response_timeout,
                    poll=self.config.response_poll,
                )
                if outcome.timed_out:
                    logger.warning(
                        "Room %s: timed out after %ss waiting for agent response",
                        room_id,
                        self.config.response_timeout,
                    )
                    await self._cancel_processing(session_id)
                    return
                reply = "\n\n".join(outcome.texts)
                if outcome.settled or tools.turn.replied:
                    if reply:
                        logger.info("Room %s: a guideline already replied; not reposting", room_id)
                    return
                if not reply:
                    logger.warning("Room %s: Parlant produced an empty reply", room_id)
                    return
                await relay_reply(tools, reply, mentions=[sender])
        except DeliveryFailedError as exc:
            raise exc.cause from exc
        except asyncio.CancelledError:
            # interrupted or stopped by the runtime: Parlant must not answer later
            if session_id is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.shield(self._cancel_processing(session_id))
            raise

    async def _cancel_processing(self, session_id: str) -> None:
        """Best effort: stop Parlant still working on a turn we gave up on."""
        try:
            from parlant.core.background_tasks import BackgroundTaskService

            service = self.server.container[BackgroundTaskService]
            await asyncio.wait_for(
                service.cancel(tag=f"process-session({session_id})", reason=CANCEL_REASON),
                CANCEL_WAIT,
            )
        except Exception as exc:
            logger.debug("Could not cancel Parlant processing for %s: %s", session_id, exc)


def _compose(msg: PlatformMessage, participants_msg: str | None, contacts_msg: str | None) -> str:
    """Contacts, then roster updates, then ``[Sender]: text``."""
    parts = [
        f"[System Update]: {update}"
        for update in (contacts_msg, participants_msg)
        if update and update.strip()
    ]
    parts.append(msg.format_for_llm())
    return "\n\n".join(parts)
