"""``LettaAdapter``: Band rooms answered by agents on a Letta server.

``per_room`` (default): a Letta agent per room. ``shared``: one agent, a Letta conversation
per room. The Letta server calls Band's tools itself, through an MCP server (the adapter's
own by default, see ``LettaMCPConfig``); the adapter reads the calls back from Letta's answer
to report them as ``tool_call``/``tool_result`` events, and relays the agent's plain text when
it did not answer with the send tool (``auto_relay``). The agent's id (and conversation's) is
posted as a ``task`` event, so a restart resumes the same agent; a room whose agent is gone
gets a new one seeded with the room's text.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any, ClassVar, Unpack

from band.converters.letta import LettaHistoryConverter, LettaSessionState
from band.core.delivery import DeliveryFailedError, relay_reply, reraise_delivery_cause
from band.core.exceptions import RoomExecutionStoppedError, TurnResultAlreadyReported
from band.core.protocols import (
    FAILURE_CODE_TIMEOUT,
    GENERIC_PROVIDER_FAILURE_MESSAGE,
    AgentToolsProtocol,
)
from band.core.simple_adapter import SimpleAdapter
from band.core.types import (
    AdapterFeatures,
    Capability,
    Emit,
    FeatureKwargs,
    PlatformMessage,
    TurnUsage,
)
from band.integrations.letta.agents import LettaAgents
from band.integrations.letta.config import LettaAdapterConfig, LettaMCPConfig, MCPTransport
from band.integrations.letta.mcp import LettaMCPBridge, bounded_teardown
from band.integrations.letta.orgscope import resolve_org_scoped_headers
from band.integrations.letta.replies import observe, turn_usage
from band.integrations.letta.rooms import RoomContext, turn_content
from band.runtime.prompts import render_system_prompt
from band.runtime.tools.definitions import iter_tool_definitions
from band_sdk_core import AgentFailure

__all__ = ["LettaAdapter", "LettaAdapterConfig", "LettaMCPConfig", "MCPTransport"]

logger = logging.getLogger("band.adapters.letta")
PROVIDER = "letta"


class LettaAdapter(SimpleAdapter[LettaSessionState]):
    """Band rooms on Letta agents (see the module docstring)."""

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.TASK_EVENTS, Emit.USAGE}
    )
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        config: LettaAdapterConfig | None = None,
        *,
        history_converter: LettaHistoryConverter | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=history_converter or LettaHistoryConverter(), **features)
        self.config = config or LettaAdapterConfig()
        self._client: Any = None
        self._agents: LettaAgents | None = None
        self._rooms: dict[str, RoomContext] = {}
        self._shared_agent_id: str | None = None
        self._mcp = self._bridge()
        self._setup = asyncio.Lock()  # agent creation and MCP registration only
        self._system_prompt = ""

    def _bridge(self) -> LettaMCPBridge:
        return LettaMCPBridge(
            self.config.mcp,
            tool_definitions=iter_tool_definitions(capabilities=self.features.capabilities),
            get_tools=self._room_tools,
            teardown_timeout_s=self.config.teardown_timeout_s,
        )

    def apply_effective_features(self, features: AdapterFeatures) -> None:
        super().apply_effective_features(features)
        self._mcp = self._bridge()

    def _room_tools(self, room_id: str) -> AgentToolsProtocol | None:
        room = self._rooms.get(room_id)
        return room.tools if room is not None else None

    # -- lifecycle ---------------------------------------------------------------------------

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self._system_prompt = render_system_prompt(
            agent_name=agent_name,
            agent_description=agent_description,
            custom_section=self.config.custom_section,
            include_base_instructions=self.config.include_base_instructions,
            features=self.features,
        )
        self._client = await self._build_client(agent_name)
        self._agents = LettaAgents(self._client, self.config, self._mcp)
        await self._mcp.ensure_ready(self._client)  # no tools, no agent: fail at start
        logger.info("Letta adapter started (%s, MCP %s)", self.config.mode, self.config.mcp.mode)

    async def _build_client(self, agent_name: str) -> Any:
        try:
            from letta_client import AsyncLetta
        except ImportError as exc:
            raise ImportError(
                "LettaAdapter needs letta-client: pip install 'openband[letta]'"
            ) from exc
        options: dict[str, Any] = {"base_url": self.config.base_url}
        if self.config.provider_key:
            options["api_key"] = self.config.provider_key
        if self.config.project:
            options["project"] = self.config.project
        if self.config.scoped:
            options["default_headers"] = await resolve_org_scoped_headers(
                base_url=self.config.base_url,
                agent_name=agent_name,
                bearer_token=self.config.provider_key,
            )
        client = AsyncLetta(**options)
        if self.config.scoped:
            await client.tools.list()  # a new organization gets Letta's base tools on a listing
        return client

    async def on_cleanup(self, room_id: str) -> None:
        room = self._rooms.pop(room_id, None)
        if room is not None and self._agents is not None:
            await self._agents.leave(room.agent_id, room.conversation_id)

    async def cleanup_all(self) -> None:
        await self._mcp.release(self._client)
        await self._mcp.close()
        client, self._client = self._client, None
        if client is not None:
            await bounded_teardown(
                client.close(), timeout_s=self.config.teardown_timeout_s, action="close the client"
            )

    # -- one turn ----------------------------------------------------------------------------

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: LettaSessionState,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        try:
            room = await self._room(room_id, history, tools)
        except Exception as exc:
            logger.exception("Room %s: preparing the Letta agent failed", room_id)
            await tools.send_failure(AgentFailure(PROVIDER, GENERIC_PROVIDER_FAILURE_MESSAGE))
            raise TurnResultAlreadyReported("Letta agent unavailable") from exc
        shared = room_id if self.config.mode == "shared" else None
        content = turn_content(
            msg,
            room,
            participants_msg,
            contacts_msg,
            bootstrap=is_session_bootstrap,
            shared_room_id=shared,
        )
        usage = TurnUsage()
        try:
            messages, usage = await self._ask(room, tools, content, room_id)
            texts = await observe(
                messages,
                tools,
                features=self.features,
                silent=self._mcp.silent_reporting_tools,
                external_mcp=self.config.mcp.mode == "external",
            )
            await self._relay(tools, texts, msg.sender_id, room_id)
            if texts:
                room.summary = " ".join(texts)[: self.config.summary_max_length]
        except DeliveryFailedError as exc:
            reraise_delivery_cause(exc)
        except (TurnResultAlreadyReported, RoomExecutionStoppedError):
            raise
        except Exception as exc:
            logger.exception("Room %s: the Letta turn failed", room_id)
            await tools.send_failure(AgentFailure(PROVIDER, GENERIC_PROVIDER_FAILURE_MESSAGE))
            raise TurnResultAlreadyReported("Letta turn failed") from exc
        finally:
            await self.emit_usage(tools, usage)

    async def _ask(
        self, room: RoomContext, tools: AgentToolsProtocol, content: str, room_id: str
    ) -> tuple[list[Any], TurnUsage]:
        """The Letta round trip, bounded; Band's tools answer for this room meanwhile."""
        assert self._agents is not None  # nosec B101 # narrows for mypy: on_started set it
        conversation = room.conversation_id if self.config.mode == "shared" else None
        room.tools = tools
        try:
            async with asyncio.timeout(self.config.turn_timeout_s):
                messages, usage = await self._agents.send(room.agent_id, conversation, content)
        except TimeoutError:
            await self._agents.cancel(room.agent_id, conversation)
            limit = f"{self.config.turn_timeout_s:g}"
            text = f"The Letta agent did not answer within {limit} s"
            await tools.send_failure(AgentFailure(PROVIDER, text, FAILURE_CODE_TIMEOUT))
            raise TurnResultAlreadyReported(text) from None
        except asyncio.CancelledError:  # a STOP: end the agent's run too
            await asyncio.shield(self._agents.cancel(room.agent_id, conversation))
            raise
        finally:
            room.tools = None
        room.pending_seed = []
        room.last_interaction = datetime.now(UTC)
        return messages, turn_usage(usage)

    async def _relay(
        self, tools: AgentToolsProtocol, texts: list[str], sender_id: str, room_id: str
    ) -> None:
        """The agent's plain text, when it did not answer with the send tool (``auto_relay``)."""
        if tools.turn.replied or not texts:
            return
        if not self.config.auto_relay:
            logger.error(
                "Room %s: the agent did not call %s; text dropped",
                room_id,
                self._mcp.send_message_tool,
            )
            return
        logger.warning(
            "Room %s: the agent did not call %s; relaying its text",
            room_id,
            self._mcp.send_message_tool,
        )
        await relay_reply(tools, "\n\n".join(texts), mentions=[sender_id] if sender_id else None)

    # -- agents for rooms --------------------------------------------------------------------

    async def _room(
        self, room_id: str, history: LettaSessionState, tools: AgentToolsProtocol
    ) -> RoomContext:
        room = self._rooms.get(room_id)
        if room is not None and self._mcp.ready:
            return room
        async with self._setup:
            await self._mcp.ensure_ready(self._client)
            room = self._rooms.get(room_id)
            if room is None:
                room = await self._new_room(room_id, history)
                self._rooms[room_id] = room
                await self._post_state(tools, room, room_id)
        return room

    async def _new_room(self, room_id: str, history: LettaSessionState) -> RoomContext:
        agents = self._agents
        assert agents is not None  # nosec B101 # narrows for mypy: on_started set it
        seed = list(history.replay_messages)
        if self.config.mode == "shared":
            if self._shared_agent_id is None:
                persona = agents.persona(self._system_prompt, None)
                known = history.agent_id or self.config.agent_id
                if not (known and await agents.resume(known, persona)):
                    known = await agents.create(persona)
                self._shared_agent_id = known
            conversation, created = await agents.conversation(
                self._shared_agent_id, history.conversation_id
            )
            return RoomContext(
                self._shared_agent_id, conversation, pending_seed=seed if created else []
            )
        persona = agents.persona(self._system_prompt, room_id)
        if history.agent_id and await agents.resume(history.agent_id, persona):
            logger.info("Room %s: resumed Letta agent %s", room_id, history.agent_id)
            return RoomContext(history.agent_id, history.conversation_id)
        agent_id = await agents.create(persona)
        logger.info("Room %s: created Letta agent %s", room_id, agent_id)
        return RoomContext(agent_id, pending_seed=seed)

    async def _post_state(self, tools: AgentToolsProtocol, room: RoomContext, room_id: str) -> None:
        """The room's agent as a ``task`` event: what a restart resumes."""
        if Emit.TASK_EVENTS not in self.features.emit:
            return
        metadata = {
            "letta_agent_id": room.agent_id,
            "letta_conversation_id": room.conversation_id,
            "letta_room_id": room_id,
            "letta_created_at": datetime.now(UTC).isoformat(),
        }
        try:
            await tools.send_event(f"Letta agent {room.agent_id}", "task", metadata)
        except Exception as exc:
            logger.warning("Room %s: posting the Letta agent failed: %s", room_id, exc)
