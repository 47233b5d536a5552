"""``CopilotSDKAdapter``: Band rooms on the GitHub Copilot SDK (extra ``copilot-sdk``).

How it works: docs/internals/sdk.md, "Copilot SDK adapter".

One Copilot client serves every room, a Copilot session each (resumed after a restart);
Band's tools are the session's only tools, so nothing needs approving.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, Unpack

from pydantic import Field, PositiveFloat

from band.adapters._coding.approvals import ApprovalMode, ApprovalRelay
from band.adapters._coding.base import CodingAgentAdapter, Prompt
from band.adapters._coding.events import Reporter
from band.adapters._coding.history import history_block
from band.adapters._coding.supervisor import TransportClosed
from band.adapters._copilot_sdk_session import (
    CopilotRoom,
    RoomSessionIds,
    SessionTurn,
    TurnState,
    cli_process,
    client_state,
    native_tools,
    turn_incident,
)
from band.converters.copilot_sdk import SESSION_ID_METADATA_KEY, CopilotSDKHistoryConverter
from band.core.adapterconfig import BaseAdapterConfig
from band.core.delivery import DeliveryFailedError, deliver_reply, relay_reply
from band.core.exceptions import BandConfigError
from band.core.protocols import FAILURE_CODE_TIMEOUT, AgentToolsProtocol
from band.core.types import FeatureKwargs
from band.integrations.copilot_sdk import CopilotSessionManager
from band.integrations.copilot_sdk.room_ask_user import (
    ASK_USER_ROOM,
    ROOM_ASK_USER_GUIDANCE,
    delivery_failed_answer,
    question_delivered_answer,
    render_room_question,
    room_inactive_answer,
)
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas
from band_protocol import AgentFailure

__all__ = [
    "INSTALL_HINT",
    "SESSION_KEY",
    "CopilotSDKAdapter",
    "CopilotSDKAdapterConfig",
    "RoomSessionIds",
    "SessionTurn",
    "TurnState",
]

logger = logging.getLogger("band.adapters.copilot_sdk")
INSTALL_HINT = "CopilotSDKAdapter needs the Copilot SDK: pip install 'openband[copilot-sdk]'"
PROVIDER = "copilot_sdk"
SESSION_KEY = SESSION_ID_METADATA_KEY
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class CopilotSDKAdapterConfig(BaseAdapterConfig):
    """Settings of a ``CopilotSDKAdapter`` (frozen, unknown fields rejected).

    ``model`` (with ``provider=``: the provider's model), ``reasoning_effort``,
    ``custom_section``; ``session_id_prefix`` (default ``band-<agent id>-``, unique per agent);
    ``base_directory`` (the CLI's ``COPILOT_HOME``), ``github_token`` /
    ``use_logged_in_user`` (``False`` for BYOK only); ``turn_timeout_s`` (default 120 s).
    """

    model: str | None = None
    custom_section: str = ""
    reasoning_effort: str | None = None
    inject_history_on_resume_failure: bool = True
    session_id_prefix: str | None = None
    base_directory: str | None = None
    github_token: str | None = Field(default=None, repr=False)
    use_logged_in_user: bool | None = None
    turn_timeout_s: PositiveFloat = 120.0
    max_history_messages: int = 50


class CopilotSDKAdapter(CodingAgentAdapter[CopilotRoom]):
    """Band rooms on Copilot sessions: one client, one session per room."""

    PROVIDER = PROVIDER
    LABEL = "Copilot runtime"

    def __init__(
        self,
        config: CopilotSDKAdapterConfig | None = None,
        *,
        history_converter: Any = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        client: Any = None,
        client_factory: Callable[[], Any] | None = None,
        provider: Any = None,
        ask_user: Callable[..., Any] | str | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        if client is not None and client_factory is not None:
            raise BandConfigError("pass client= (yours, shared) or client_factory=, not both")
        if ask_user is not None and not callable(ask_user) and ask_user != ASK_USER_ROOM:
            raise BandConfigError(f"ask_user must be {ASK_USER_ROOM!r}, a callable or None")
        config = config or CopilotSDKAdapterConfig()
        super().__init__(
            relay=ApprovalRelay(ApprovalMode.AUTO_DECLINE, text_notifications=False),
            session_key=SESSION_KEY,
            custom_section=config.custom_section,
            additional_tools=additional_tools or (),
            history_converter=history_converter or CopilotSDKHistoryConverter(),
            **features,
        )
        self.config = config
        self.provider = provider
        self.ask_user = ask_user
        self.client_factory = client_factory
        # The client and each room's session; a client passed in stays its owner's.
        self.sessions: CopilotSessionManager | None = (
            None if client is None else CopilotSessionManager(client, owns_client=False)
        )
        self._starting = asyncio.Lock()
        self._bound: dict[str, AgentToolsProtocol] = {}
        self._ids: dict[str, RoomSessionIds] = {}
        self._prompts: dict[str, Prompt] = {}
        self._turns: dict[str, TurnState] = {}

    @property
    def client(self) -> Any:
        """The Copilot client (None before the first start)."""
        return None if self.sessions is None else self.sessions.client

    # -- the client -----------------------------------------------------------------------------

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        try:
            import copilot  # noqa: F401
        except ImportError:
            raise ImportError(INSTALL_HINT) from None
        await super().on_started(agent_name, agent_description)
        if self.ask_user == ASK_USER_ROOM:
            self.system_prompt = f"{self.system_prompt}\n\n{ROOM_ASK_USER_GUIDANCE}"
        # Started now: a missing CLI or missing credentials refuse the start, in words.
        client = (await self._manager()).client
        if self.provider is None:
            status = await client.get_auth_status()
            if not getattr(status, "isAuthenticated", True):
                await self.cleanup_all()
                why = getattr(status, "statusMessage", None) or "no credentials found"
                raise BandConfigError(
                    f"Copilot is not signed in ({why}): run `copilot login`, set "
                    "github_token, or pass provider= for your own model endpoint"
                )

    async def _manager(self) -> CopilotSessionManager:
        """The session manager on a started client (a new client when ours died)."""
        async with self._starting:
            process = cli_process(self.client)
            if self.sessions is not None and process is not None and process.poll() is not None:
                # The SDK still says "connected" after its CLI died: stop it, start afresh.
                logger.warning("The Copilot CLI exited (%s); starting it again", process.returncode)
                try:
                    await asyncio.wait_for(self.sessions.client.stop(), 10)
                except Exception as exc:
                    logger.info("Stopping the exited Copilot client: %s", exc)
                if self.sessions.owns_client:
                    self.sessions = None
            if self.sessions is None:
                self.sessions = CopilotSessionManager(self._new_client())
            try:
                await self.sessions.ensure_started()  # no-op when connected
            except Exception as exc:
                raise BandConfigError(f"the Copilot runtime did not start: {exc}") from exc
            return self.sessions

    def _new_client(self) -> Any:
        if self.client_factory is not None:
            return self.client_factory()
        from copilot import CopilotClient

        config = self.config
        return CopilotClient(
            github_token=config.github_token,
            use_logged_in_user=config.use_logged_in_user,
            base_directory=config.base_directory,
        )

    async def cleanup_all(self) -> None:
        await super().cleanup_all()
        if self.sessions is None:
            return
        try:
            await asyncio.wait_for(self.sessions.stop(), 15)
        except Exception as exc:
            logger.warning("Stopping the Copilot client failed: %s", exc)
        if self.sessions.owns_client:
            self.sessions = None

    async def forget_room(self, room_id: str) -> None:
        self._bound.pop(room_id, None)
        self._ids.pop(room_id, None)
        self._turns.pop(room_id, None)

    def session_id(self, room_id: str) -> str:
        """The room's session id: the agent's id keeps agents on one host apart."""
        prefix = self.config.session_id_prefix
        if prefix is None:
            who = self.platform.agent_id if self.platform is not None else self.agent_name
            prefix = f"band-{_UNSAFE.sub('-', who)}-"
        return f"{prefix}{room_id}"

    # -- sessions and tools ---------------------------------------------------------------------

    def _tools(self, room_id: str) -> list[Any]:
        tools = self._bound[room_id]
        schemas = tools.get_tool_schemas("openai", capabilities=self.features.capabilities)
        schemas += custom_tools_to_schemas(self.additional_tools, "openai")

        def current() -> tuple[AgentToolsProtocol, Reporter] | None:
            bound, prompt = self._bound.get(room_id), self._prompts.get(room_id)
            return None if bound is None or prompt is None else (bound, prompt.reporter)

        return native_tools(schemas, current, self.additional_tools)

    async def start_process(self, room_id: str, reporter: Reporter) -> CopilotRoom:
        manager = await self._manager()
        client = manager.client
        self._bound.setdefault(room_id, reporter.tools)
        tools = self._tools(room_id)
        options: dict[str, Any] = {
            "model": self.config.model,
            "tools": tools,
            # Band's tools only: Copilot's shell and file tools are off.
            "available_tools": [tool.name for tool in tools],
            "system_message": {"mode": "replace", "content": self.system_prompt},
            "on_permission_request": _deny,
        }
        if self.config.reasoning_effort:
            options["reasoning_effort"] = self.config.reasoning_effort
        if self.provider is not None:
            options["provider"] = self.provider
        if self.ask_user is not None:
            options["available_tools"].append("ask_user")
            options["on_user_input_request"] = (
                self.ask_user if callable(self.ask_user) else self._room_question(room_id)
            )
        ids = self._ids.setdefault(room_id, RoomSessionIds())
        known = ids.current or self.known_sessions.get(room_id)
        if known is not None:
            try:
                session = await client.resume_session(known, **options)
                ids.current = known
                return CopilotRoom(room_id, session, manager, created=False)
            except Exception as exc:
                logger.info("Room %s: resuming %s failed: %s", room_id, known, exc)
        ids.current = self.session_id(room_id)
        session = await client.create_session(session_id=ids.current, **options)
        return CopilotRoom(room_id, session, manager, created=True)

    # -- one prompt -----------------------------------------------------------------------------

    async def run_prompt(self, room: CopilotRoom, prompt: Prompt) -> None:
        self._bound[room.room_id] = prompt.tools
        self._prompts[room.room_id] = prompt
        texts = [*prompt.updates, prompt.msg.format_for_llm()]
        if room.created and self.config.inject_history_on_resume_failure:
            block = history_block(
                self.transcripts.pop(room.room_id, ()), self.config.max_history_messages
            )
            if block:
                texts.insert(0, block)
        room.created, room.events[:] = False, []
        turn = self._turns[room.room_id] = TurnState({"id": prompt.msg.sender_id})
        # Calls on one session never interleave; a cleanup waits for the turn to end.
        async with room.manager.turn_lock(room.room_id):
            try:
                await room.send("\n\n".join(texts), self.config.turn_timeout_s)
            except TransportClosed:
                raise
            except TimeoutError:
                await self._timed_out(room, prompt)
            except Exception as exc:
                if not room.alive:
                    raise TransportClosed(str(exc)) from exc
                # The SDK raises a session.error event ("Session error: <what>\n  <hint>").
                what = str(exc).removeprefix("Session error: ").splitlines()[0]
                await self.fail(prompt.tools, f"Copilot turn failed: {what}", exc)
            finally:
                self._prompts.pop(room.room_id, None)
            await self._finish(room, prompt, turn)

    def _room_question(self, room_id: str) -> Callable[..., Any]:
        """Copilot's ``ask_user`` for ``room_id``: the question becomes the turn's reply."""

        async def ask(request: dict[str, Any], _context: dict[str, str]) -> dict[str, Any]:
            prompt, turn = self._prompts.get(room_id), self._turns.get(room_id)
            if prompt is None or turn is None:
                return room_inactive_answer()
            question = render_room_question(request)
            try:
                await deliver_reply(prompt.tools, question, mentions=[turn.sender_mention["id"]])
            except DeliveryFailedError as exc:
                logger.warning("Room %s: posting a question failed: %s", room_id, exc.cause)
                return delivery_failed_answer(exc.cause)
            return question_delivered_answer(question)

        return ask

    async def _finish(self, room: CopilotRoom, prompt: Prompt, turn: TurnState) -> None:
        final, errors = "", []
        thoughts: dict[str, str] = {}
        for event in room.events:
            kind, data = str(getattr(event.type, "value", event.type)), event.data
            if kind == "assistant.usage":
                turn.add_usage(data)
            elif kind == "assistant.message" and getattr(data, "tool_requests", None):
                # Text beside tool calls is commentary: a thought, in order.
                thoughts[f"message-{len(thoughts)}"] = str(data.content or "")
            elif kind == "assistant.message":
                final = str(data.content or "") or final
            elif kind == "assistant.reasoning" and data.content:
                # The CLI repeats a reasoning block (same id) within a turn: once each.
                reasoning = str(getattr(data, "reasoning_id", len(turn.reasonings)))
                turn.reasonings[reasoning] = thoughts[reasoning] = str(data.content)
            elif kind == "session.error":
                errors.append(str(data.message))
            elif (incident := turn_incident(kind, data)) is not None:
                turn.incidents.append(incident)
        for thought in thoughts.values():
            await prompt.reporter.thought(thought)
        await self._record_session(room, prompt)
        await prompt.reporter.usage(turn.usage)
        if errors and not prompt.tools.turn.replied:
            await self.fail(prompt.tools, f"Copilot turn failed: {errors[-1]}")
        sent = await relay_reply(prompt.tools, final, mentions=[turn.sender_mention["id"]])
        if not sent and not prompt.tools.turn.replied and turn.incidents:
            logger.info("Room %s: no reply; %s", room.room_id, "; ".join(turn.incidents))

    async def _record_session(self, room: CopilotRoom, prompt: Prompt) -> None:
        """Post the room's session id (a ``task`` event) when it is not the one posted."""
        ids = self._ids.setdefault(room.room_id, RoomSessionIds())
        live = getattr(room.session, "session_id", "")
        ids.current = str(live or ids.current or self.session_id(room.room_id))
        self.known_sessions[room.room_id] = ids.current
        if ids.persisted != ids.current:
            ids.persisted = ids.current
            metadata = {SESSION_KEY: ids.current, "copilot_room_id": room.room_id}
            await prompt.reporter.task("Copilot SDK session", metadata, always=True)

    async def _timed_out(self, room: CopilotRoom, prompt: Prompt) -> None:
        """Abort and drop the session (its lock is held), so nothing of the turn runs on;
        the next message resumes it afresh."""
        await room.manager.evict_session(room.room_id)
        await self.processes.discard(room.room_id)
        limit = self.config.turn_timeout_s
        message = f"Copilot did not finish within {limit:g} s; the turn was aborted."
        await self.fail(prompt.tools, AgentFailure(PROVIDER, message, FAILURE_CODE_TIMEOUT))

    def status_lines(self, room_id: str) -> list[str]:
        connected = self.client is not None and client_state(self.client) == "connected"
        session = self.known_sessions.get(room_id)
        return [
            f"Copilot runtime: {'connected' if connected else 'not started'}.",
            f"Session: `{session}`." if session else "Session: none yet.",
            f"Model: `{self.config.model or 'the runtime default'}`.",
        ]


def _deny(*args: Any) -> Any:
    """Copilot's own tools are off; a permission request cannot be for Band's tools."""
    from copilot.generated.rpc import PermissionDecisionReject

    return PermissionDecisionReject(feedback="Only Band's tools are available here.")
