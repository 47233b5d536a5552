"""``GeminiAdapter``: Band rooms on the Gemini API through ``google-genai``, with its own tool
loop (``function_call`` / ``function_response`` parts). The loop lives in
:mod:`band.adapters._loop`; this module translates, retries transient errors and trims.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import logging
from collections.abc import Sequence
from typing import Any, ClassVar, Unpack

import httpx
from pydantic import NonNegativeFloat, NonNegativeInt, PositiveInt

from band._extras import needs_extra

with needs_extra("GeminiAdapter needs google-genai", "gemini"):
    from google import genai
    from google.genai import types
    from google.genai.errors import ServerError

from band.converters.gemini import (
    GeminiHistoryConverter,
    GeminiMessages,
    append_turn,
    function_response,
)
from band.core.exceptions import ProviderRunError
from band.core.protocols import AgentToolsProtocol, HistoryConverter, generic_provider_failure
from band.core.types import Capability, Emit, FeatureKwargs
from band.runtime.custom_tools import CustomToolDef
from band_sdk_core import AgentFailure

from ._chat import ModelLoopConfig, config_loop_options
from ._gemini_common import gemini_usage, openai_functions
from ._loop import ModelCall, ModelLoopAdapter, ModelTurn, ToolOutcome, ToolRoundsExceeded
from ._tool_events import image_blocks

__all__ = ["GeminiAdapter", "GeminiAdapterConfig"]

logger = logging.getLogger("band.adapters.gemini")
PROVIDER = "gemini"
GEMINI_MODEL = "gemini-3.8-flash"


def _transient_errors() -> tuple[type[BaseException], ...]:
    """Errors worth another attempt: the server's 5xx, and the connection itself on whichever
    HTTP library google-genai uses (httpx; httpx2 from google-genai 3; aiohttp when installed)."""
    kinds: list[type[BaseException]] = [ServerError, httpx.TimeoutException, httpx.TransportError]
    for module, names in (
        ("httpx2", ("TimeoutException", "TransportError")),
        ("aiohttp", ("ClientConnectionError",)),
    ):
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        kinds.extend(getattr(found, name) for name in names if hasattr(found, name))
    return tuple(kinds)


TRANSIENT = _transient_errors()


class GeminiAdapterConfig(ModelLoopConfig):
    """Settings of a :class:`GeminiAdapter` (frozen; unknown fields are rejected).

    ``ModelLoopConfig``'s model, key and prompt: ``provider_key`` None lets google-genai read
    ``GOOGLE_API_KEY`` / ``GEMINI_API_KEY`` (or use Vertex AI); ``GOOGLE_GEMINI_BASE_URL``
    moves it to another endpoint. ``max_tool_rounds`` bounds the model calls of one turn;
    a 5xx or a transport error is retried ``max_retries`` times, after
    ``retry_base_delay_s`` seconds, doubled each time. ``max_history_messages`` bounds the
    ``Content`` turns kept per room.
    """

    model: str = GEMINI_MODEL
    max_output_tokens: PositiveInt | None = None
    temperature: float | None = None
    max_tool_rounds: PositiveInt = 20
    max_retries: NonNegativeInt = 2
    retry_base_delay_s: NonNegativeFloat = 1.0
    max_history_messages: PositiveInt = 200


def _refusal(response: types.GenerateContentResponse) -> ProviderRunError | None:
    """The failure an answer carries as data: a candidate stopped with no parts for another
    reason than STOP (safety, recitation, ...), or a prompt blocked before any candidate."""
    if response.candidates:
        candidate = response.candidates[0]
        reason = candidate.finish_reason
        if (candidate.content and candidate.content.parts) or reason in (
            None,
            types.FinishReason.STOP,
        ):
            return None
        return ProviderRunError(str(reason.value), candidate.finish_message)
    feedback = response.prompt_feedback
    if feedback is None or feedback.block_reason is None:
        return None
    return ProviderRunError(str(feedback.block_reason.value), feedback.block_reason_message)


def _turn(response: types.GenerateContentResponse) -> ModelTurn:
    content = response.candidates[0].content if response.candidates else None
    parts = (content.parts if content else None) or []
    text = "".join(p.text for p in parts if p.text and not p.thought) or None
    reasoning = "".join(p.text for p in parts if p.text and p.thought) or None
    calls = tuple(
        ModelCall(call.id or f"gemini_tool_call_{i}", call.name or "", dict(call.args or {}))
        for i, call in enumerate(response.function_calls or [])
    )
    if content is None and calls:
        parts = [
            types.Part(function_call=types.FunctionCall(id=c.id, name=c.name, args=c.args))
            for c in calls
        ]
        content = types.Content(role="model", parts=parts)
    return ModelTurn(text, calls, gemini_usage(response.usage_metadata), content, reasoning)


def _response_part(outcome: ToolOutcome) -> types.Part:
    """The function response of one tool call; an image result travels as inline data."""
    images = None if outcome.is_error else image_blocks(outcome.output)
    output, inline = outcome.output, None
    if images:
        output = f"[{len(images)} image(s) attached]"
        inline = [
            types.FunctionResponsePart(
                inline_data=types.FunctionResponseBlob(mime_type=mime, data=base64.b64decode(data))
            )
            for mime, data in images
        ]
    return types.Part(
        function_response=types.FunctionResponse(
            id=outcome.call.id,
            name=outcome.call.name,
            response=function_response(output, outcome.is_error),
            parts=inline,
        )
    )


def _failure(error: Exception) -> AgentFailure:
    if isinstance(error, ServerError):
        status = None if error.status is None else str(error.status)
        return AgentFailure(PROVIDER, str(error), status, error.message)
    if isinstance(error, ToolRoundsExceeded):
        return AgentFailure(PROVIDER, str(error))
    return generic_provider_failure(PROVIDER, error)


class GeminiAdapter(ModelLoopAdapter[types.Content]):
    """Runs one ``generate_content`` tool loop per Band message, one conversation per room.

    ``client`` is created on the first model call (``genai.Client(api_key=provider_key)``)
    unless one was assigned before. The model's plain text is never posted: it answers
    through ``band_send_message``. A failed model call or an exhausted tool budget is
    reported in the room as a ``gemini`` failure.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)
    RELAYS_TEXT = False

    def __init__(
        self,
        config: GeminiAdapterConfig | None = None,
        *,
        history_converter: HistoryConverter[GeminiMessages] | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        self.config = config or GeminiAdapterConfig()
        super().__init__(
            **config_loop_options(self.config),
            max_tool_rounds=self.config.max_tool_rounds,
            additional_tools=additional_tools or (),
            history_converter=history_converter or GeminiHistoryConverter(),
            **features,
        )
        self.client: genai.Client | None = None
        self._tools: tuple[list[dict[str, Any]], list[types.Tool]] | None = None

    # -- translation -------------------------------------------------------------------------

    def add_user_turn(self, messages: GeminiMessages, lines: Sequence[str]) -> None:
        append_turn(messages, "user", [types.Part.from_text(text=line) for line in lines])

    def tool_results(self, outcomes: Sequence[ToolOutcome]) -> GeminiMessages:
        return [types.Content(role="user", parts=[_response_part(o) for o in outcomes])]

    def _declarations(self, schemas: list[dict[str, Any]]) -> list[types.Tool]:
        """Function declarations of a turn's schemas (built once per turn)."""
        if self._tools is None or self._tools[0] is not schemas:
            declarations = [
                types.FunctionDeclaration(
                    name=name, description=description, parameters_json_schema=parameters
                )
                for name, description, parameters in openai_functions(schemas)
            ]
            tools = [types.Tool(function_declarations=declarations)] if declarations else []
            self._tools = (schemas, tools)
        return self._tools[1]

    # -- the model call ----------------------------------------------------------------------

    def ensure_client(self) -> genai.Client:
        """The client, created on first use (so no key is needed to build the adapter)."""
        if self.client is None:
            try:
                self.client = genai.Client(api_key=self.config.provider_key)
            except ValueError as exc:
                raise ValueError(
                    "Gemini client initialization failed: set GOOGLE_API_KEY / GEMINI_API_KEY,"
                    " or enable Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true + GOOGLE_CLOUD_PROJECT)"
                ) from exc
        return self.client

    async def complete(self, messages: GeminiMessages, schemas: list[dict[str, Any]]) -> ModelTurn:
        config = types.GenerateContentConfig(
            system_instruction=self.system_prompt or None,
            tools=self._declarations(schemas) or None,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            max_output_tokens=self.config.max_output_tokens,
            temperature=self.config.temperature,
        )
        client = self.ensure_client()
        attempts = self.config.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                response = await client.aio.models.generate_content(
                    model=self.config.model, contents=messages, config=config
                )
                break
            except TRANSIENT as exc:
                if attempt >= attempts:
                    raise
                delay = self.config.retry_base_delay_s * 2 ** (attempt - 1)
                logger.warning(
                    "Gemini transient error (attempt %d/%d): %s; retrying in %.2fs",
                    attempt,
                    attempts,
                    exc,
                    delay,
                )
                await asyncio.sleep(delay)
        refusal = _refusal(response)
        if refusal is not None:
            raise refusal
        return _turn(response)

    async def report_failure(self, tools: AgentToolsProtocol, error: Exception) -> None:
        await tools.send_failure(_failure(error))

    # -- the room's conversation -------------------------------------------------------------

    def end_turn(self, room_id: str) -> None:
        """Keep at most ``max_history_messages`` turns, starting on a user turn that does not
        open with function responses whose calls were cut."""
        history = self.rooms.get(room_id)
        limit = self.config.max_history_messages
        if not history or len(history) <= limit:
            return
        kept = history[-limit:]
        while kept:
            first = kept[0]
            parts = list(first.parts or [])
            leading = 0
            while leading < len(parts) and parts[leading].function_response is not None:
                leading += 1
            if first.role == "model" or leading == len(parts):
                kept.pop(0)
                continue
            if leading:
                kept[0] = types.Content(role=first.role, parts=parts[leading:])
            break
        logger.debug("Room %s: kept %d of %d Gemini turns", room_id, len(kept), len(history))
        self.rooms[room_id] = kept
