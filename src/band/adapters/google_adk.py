"""``GoogleADKAdapter``: Band rooms on a Google ADK agent (Gemini through ``google-genai``).

ADK owns the tool loop. Each Band message gets a fresh ``InMemoryRunner`` holding an ADK
agent whose tools are this turn's Band tools (and custom tools); continuity comes from the
room's recent conversation, replayed as a text transcript ahead of the live message. Works
on google-adk 1.10 to 1.x (``Gemini._tracking_headers`` became a method in 1.20).
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Final, Unpack

from pydantic import Field, PositiveInt

from band.converters.google_adk import GoogleADKHistoryConverter, GoogleADKMessages
from band.core.adapterconfig import BaseAdapterConfig
from band.core.exceptions import ProviderRunError, RoomExecutionStoppedError
from band.core.protocols import AgentToolsProtocol, HistoryConverter, generic_provider_failure
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas
from band.runtime.prompts import system_updates

from ._gemini_common import gemini_usage, openai_functions
from ._prompt import PromptedAdapter
from ._tool_events import UsageTotal, report_tool_call, report_tool_result

if TYPE_CHECKING:
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    from ._google_adk_runtime import BoundedGemini

__all__ = ["GOOGLE_ADK_MAX_GENERATION_RETRIES", "GoogleADKAdapter", "GoogleADKAdapterConfig"]

logger = logging.getLogger("band.adapters.google_adk")
PROVIDER = "google_adk"
APP_NAME = "band"
GEMINI_MODEL = "gemini-3.8-flash"
# Extra HTTP attempts a generation request may make (attempts = max_retries + 1).
GOOGLE_ADK_MAX_GENERATION_RETRIES: Final[int] = 10


class GoogleADKAdapterConfig(BaseAdapterConfig):
    """Settings of a :class:`GoogleADKAdapter` (frozen; unknown fields are rejected).

    ``system_prompt`` replaces the rendered prompt; ``custom_section`` is added to it.
    ``max_retries``: extra HTTP attempts per generation request (never a tool or a turn),
    at most :data:`GOOGLE_ADK_MAX_GENERATION_RETRIES`. The transcript replayed each turn
    holds the room's last ``max_history_messages`` entries, cut to its last
    ``max_transcript_chars`` characters (whole lines).
    """

    model: str = GEMINI_MODEL
    system_prompt: str | None = None
    custom_section: str | None = None
    max_retries: int = Field(default=2, ge=0, le=GOOGLE_ADK_MAX_GENERATION_RETRIES)
    max_history_messages: PositiveInt = 50
    max_transcript_chars: PositiveInt = 100_000


def _adk_runtime() -> ModuleType:
    """The module holding the ADK subclasses (imports google-adk on first use)."""
    from . import _google_adk_runtime

    return _google_adk_runtime


def adk_agent_name(name: str) -> str:
    """An ADK-valid agent name for a Band display name: a Python identifier, never ``user``
    (ADK's name for the person speaking)."""
    safe = re.sub(r"[^A-Za-z0-9_]", "_", name or "band_agent")
    return safe if safe.isidentifier() and safe != "user" else f"band_{safe}"


class _Turn:
    """What the tools of one turn share: the room's tools, the custom tools, and the calls
    whose result was an error (ADK's function responses do not say)."""

    def __init__(self, tools: AgentToolsProtocol, custom: Sequence[CustomToolDef]) -> None:
        self.tools = tools
        self.custom = custom
        self.failed: set[str] = set()


def _response_output(response: Any) -> str:
    """A function response as the tool_result output: ADK wraps a text result as
    ``{"result": text}``."""
    if isinstance(response, dict) and set(response) == {"result"}:
        value = response["result"]
        return value if isinstance(value, str) else json.dumps(value, default=str)
    return "" if response is None else json.dumps(response, default=str)


def _event_text(event: Any) -> str:
    parts = getattr(getattr(event, "content", None), "parts", None) or []
    return " ".join(p.text for p in parts if getattr(p, "text", None) and not p.thought)


class GoogleADKAdapter(PromptedAdapter[GoogleADKMessages]):
    """Runs one ADK agent run per Band message, the room's recent conversation replayed.

    The model's final text is not posted (it answers through ``band_send_message``); it is
    kept for the next transcript. A model error ends the turn with a ``google_adk`` failure.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        config: GoogleADKAdapterConfig | None = None,
        *,
        history_converter: GoogleADKHistoryConverter | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        self.config = config or GoogleADKAdapterConfig()
        self.converter = history_converter or GoogleADKHistoryConverter()
        converter: HistoryConverter[GoogleADKMessages] = self.converter
        super().__init__(
            system_prompt=self.config.system_prompt,
            custom_section=self.config.custom_section or "",
            history_converter=converter,
            **features,
        )
        self.additional_tools = list(additional_tools or ())
        self.histories: dict[str, GoogleADKMessages] = {}
        self.sessions: dict[str, str] = {}
        self._clients: BoundedGemini | None = None  # owns the client every turn's model uses
        self._adk = _adk_runtime()  # google-adk, or ImportError naming the extra

    # -- one turn ----------------------------------------------------------------------------

    def _runner(self, turn: _Turn, schemas: list[dict[str, Any]]) -> InMemoryRunner:
        adk = self._adk
        types = adk.types
        adk_tools = [
            adk.BandADKTool(name, description, parameters, turn)
            for name, description, parameters in openai_functions(schemas)
        ]
        model = adk.BoundedGemini(
            model=self.config.model,
            retry_options=types.HttpRetryOptions(attempts=self.config.max_retries + 1),
        )
        if self._clients is None:
            self._clients = model
        else:
            model.sharing(self._clients)
        prompt = self.system_prompt
        agent = adk.ADKAgent(
            name=adk_agent_name(self.agent_name),
            model=model,
            # A callable instruction is not an ADK template: braces in the prompt stay text.
            instruction=lambda _context: prompt,
            tools=adk_tools,
        )
        return adk.InMemoryRunner(agent=agent, app_name=APP_NAME)

    def _prompt(self, room_id: str, lines: list[str]) -> str:
        """The turn's text: the replayed transcript (if any), the updates, the message."""
        window = self.histories[room_id][-self.config.max_history_messages :]
        transcript = self.converter.format_transcript(window) if window else ""
        limit = self.config.max_transcript_chars
        if len(transcript) > limit:
            cut = transcript[-limit:]
            newline = cut.find("\n")
            logger.warning("Room %s: transcript cut to its last %d characters", room_id, limit)
            transcript = cut[newline + 1 :] if newline != -1 else cut
        head = (
            [f"[Previous conversation context]\n{transcript}\n[End of previous context]\n"]
            if transcript
            else []
        )
        return "\n".join([*head, *lines])

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: GoogleADKMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if is_session_bootstrap or room_id not in self.histories:
            self.histories[room_id] = list(history)
        live = msg.format_for_llm()
        text = self._prompt(room_id, [*system_updates(participants_msg, contacts_msg), live])
        schemas = tools.get_tool_schemas(
            "openai", capabilities=self.features.capabilities
        ) + custom_tools_to_schemas(self.additional_tools, "openai")
        turn = _Turn(tools, self.additional_tools)
        usage = UsageTotal()
        runner: InMemoryRunner | None = None
        try:
            runner = self._runner(turn, schemas)
            session_id = str(uuid.uuid4())
            self.sessions[room_id] = session_id
            await runner.session_service.create_session(
                app_name=APP_NAME, user_id=room_id, session_id=session_id
            )
            types = self._adk.types
            content = types.Content(role="user", parts=[types.Part.from_text(text=text)])
            answer = await self._run(runner, turn, room_id, session_id, content, usage)
        except RoomExecutionStoppedError:
            raise  # the platform stopped the room: the turn ends quietly
        except Exception as exc:
            logger.exception("Room %s: the ADK run failed", room_id)
            await tools.send_failure(generic_provider_failure(PROVIDER, exc))
            raise
        finally:
            try:
                await self.emit_usage(tools, usage.total())
            finally:
                if runner is not None:
                    await runner.close()
        self._remember(room_id, live, answer)

    async def _run(
        self,
        runner: InMemoryRunner,
        turn: _Turn,
        room_id: str,
        session_id: str,
        content: types.Content,
        usage: UsageTotal,
    ) -> str:
        """Drive the run to its end; return the final answer's text."""
        answer = ""
        failure: ProviderRunError | None = None
        events = runner.run_async(user_id=room_id, session_id=session_id, new_message=content)
        async for event in events:
            usage.add(gemini_usage(getattr(event, "usage_metadata", None)))
            code = event.error_code
            # A model failure arrives as an event and ends the run; drain rather than break,
            # which would leave ADK's generators open. Old ADKs report an empty finish as STOP.
            if code and code != self._adk.types.FinishReason.STOP:
                failure = ProviderRunError(str(getattr(code, "value", code)), event.error_message)
            await self._report(turn, event)
            if event.is_final_response():
                answer = _event_text(event)
        if failure is not None:
            raise failure
        return answer

    async def _report(self, turn: _Turn, event: Any) -> None:
        for call in event.get_function_calls() or []:
            args = dict(call.args) if isinstance(call.args, dict) else {}
            await report_tool_call(turn.tools, self.features, call.name, args, call.id or "")
        for response in event.get_function_responses() or []:
            call_id = response.id or ""
            await report_tool_result(
                turn.tools,
                self.features,
                response.name,
                _response_output(response.response),
                call_id,
                is_error=call_id in turn.failed,
            )

    def _remember(self, room_id: str, live: str, answer: str) -> None:
        """Add the turn to the room's transcript; past twice the window, keep one window."""
        entries = self.histories[room_id]
        entries.append({"role": "user", "content": live})
        if answer:
            entries.append({"role": "model", "content": answer})
        window = self.config.max_history_messages
        if len(entries) > 2 * window:
            self.histories[room_id] = entries[-window:]

    async def on_cleanup(self, room_id: str) -> None:
        self.histories.pop(room_id, None)
        self.sessions.pop(room_id, None)

    async def cleanup_all(self) -> None:
        """Close the model's clients (built on the first turn, shared by every turn since)."""
        clients, self._clients = self._clients, None
        if clients is not None:
            await clients.aclose()
