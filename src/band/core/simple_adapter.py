"""``SimpleAdapter``: the base class framework adapters subclass.

How it works: docs/internals/sdk.md, "How the runtime drives an adapter".

The runtime drives it through ``startup``, ``on_event`` (once per turn), ``on_cleanup`` and
``dispose``.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar, Unpack

from band.logging_config import trace_context_scope

from ._cleanup import CleanupCallback, CleanupRegistry
from .exceptions import BandConfigError, TurnResultAlreadyReported
from .features import prune_by_feature_flags, resolve_features
from .handoff import context_handoff
from .protocols import AgentToolsProtocol, HistoryConverter
from .turn import report_unsettled_turn
from .types import (
    SYNTHETIC_CONTACT_EVENTS_SENDER_ID,
    USAGE_EVENT_TYPE,
    USAGE_METADATA_KEY,
    AdapterFeatures,
    AgentInput,
    Capability,
    Emit,
    FeatureKwargs,
    PlatformConnection,
    PlatformMessage,
    TurnUsage,
    is_contact_hub_turn,
)

__all__ = ["CONTACT_EVENTS_SENDER_ID", "SimpleAdapter"]

H = TypeVar("H")
CONTACT_EVENTS_SENDER_ID = SYNTHETIC_CONTACT_EVENTS_SENDER_ID
logger = logging.getLogger("band.core.simple_adapter")


class SimpleAdapter(ABC, Generic[H]):
    """Base of framework adapters: features, lifecycle hooks and the judged turn.

    Subclasses declare ``SUPPORTED_EMIT`` / ``SUPPORTED_CAPABILITIES`` and implement
    ``on_message``. ``H`` is the converted history type handed to ``on_message``.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset()
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset()

    def __init__(
        self,
        *,
        history_converter: HistoryConverter[H] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        self.history_converter = history_converter
        self.agent_name = ""
        self.agent_description = ""
        self.platform: PlatformConnection | None = None
        self.features: AdapterFeatures = resolve_features(
            type(self).__name__, self.SUPPORTED_EMIT, self.SUPPORTED_CAPABILITIES, features
        )
        self._cleanups = CleanupRegistry()

    # lifecycle hooks for subclasses

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Store the agent's name and description; tell the history converter the name."""
        self.agent_name = agent_name
        self.agent_description = agent_description
        set_name = getattr(self.history_converter, "set_agent_name", None)
        if callable(set_name):
            set_name(agent_name)

    @abstractmethod
    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: H,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """Handle one message that mentions the agent; answer through ``tools``."""

    async def on_cleanup(self, room_id: str) -> None:
        """Drop per-room state; called when the agent leaves a room and at stop."""

    async def cleanup_all(self) -> None:
        """Release adapter-wide resources; called once at stop."""

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        """The platform interrupted or stopped the room's running turn."""

    async def try_handle_control(self, msg: PlatformMessage, tools: AgentToolsProtocol) -> bool:
        """Return True to consume ``msg`` as an out-of-band control (no model run)."""
        return False

    def add_cleanup(self, callback: CleanupCallback) -> None:
        """Register a zero-argument async callable to run at stop (last registered first)."""
        self._cleanups.add(callback)

    @property
    def judges_turns(self) -> bool:
        """False skips turn judging (adapters whose replies arrive out of band)."""
        return True

    # model selection (not supported unless a subclass says so)

    @property
    def model_selection(self) -> Mapping[str, Any]:
        return {}

    async def list_models(self) -> list[dict[str, Any]] | None:
        return None

    async def apply_model_selection(self, selection: Mapping[str, Any], *, room_id: str) -> None:
        raise BandConfigError(f"{type(self).__name__} does not support switching models at runtime")

    # helpers

    def require_platform(self) -> PlatformConnection:
        """The injected platform connection, or RuntimeError before the agent starts."""
        if self.platform is None:
            raise RuntimeError(
                "platform connection not available yet; the runtime injects it when the "
                "Agent starts"
            )
        return self.platform

    def apply_effective_features(self, features: AdapterFeatures) -> None:
        """Adopt the features the deployment serves (override to rebuild caches)."""
        self.features = features

    async def emit_usage(self, tools: AgentToolsProtocol, usage: TurnUsage) -> None:
        """Post token usage as a ``task`` event when ``Emit.USAGE`` is on; never raises."""
        if Emit.USAGE not in self.features.emit or not usage:
            return
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            return
        record = {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
        }
        content = f"Token usage: input={usage.input_tokens} output={usage.output_tokens}"
        try:
            await tools.send_event(content, USAGE_EVENT_TYPE, {USAGE_METADATA_KEY: record})
        except Exception as exc:
            logger.warning("Failed to send usage event: %s", exc)

    # runtime entry points

    async def startup(
        self,
        agent_name: str,
        agent_description: str,
        *,
        feature_flags: Mapping[str, Any] | None = None,
        host: object | None = None,
    ) -> None:
        """Start the adapter for a host: seal cleanups, prune features, ``on_started``.

        Without ``host`` the ownership taken earlier (``runtime.startup.accept_adapter``)
        stands.
        """
        if host is not None or not self._cleanups.sealed:
            self._cleanups.accept_host(host)
        pruned = prune_by_feature_flags(self.features, feature_flags)
        if pruned != self.features:
            self.apply_effective_features(pruned)
        await self.on_started(agent_name, agent_description)

    async def dispose(self, host: object | None = None) -> None:
        """Run ``cleanup_all`` then the registered callbacks; failures raise an ExceptionGroup."""
        errors: list[Exception] = []
        try:
            await self.cleanup_all()
        except Exception as exc:
            errors.append(exc)
        try:
            await self._cleanups.run(host)
        except ExceptionGroup as group:
            errors.extend(group.exceptions)
        if errors:
            raise ExceptionGroup("Agent cleanup remains incomplete", errors)

    def convert_history(self, inp: AgentInput) -> Any:
        """The ``history`` argument: converter output (``[]`` raw after bootstrap)."""
        if self.history_converter is None:
            return inp.history
        raw = inp.history.raw if inp.is_session_bootstrap else []
        return self.history_converter.convert(raw)

    async def on_event(self, inp: AgentInput) -> None:
        """Run one turn: convert history, call ``on_message``, judge the result.

        Log lines of the turn share one ``trace_context``; a history conversion that fails
        leaves the turn's context owed to its retry (``core.handoff``).
        """
        with trace_context_scope():
            with context_handoff():
                history = self.convert_history(inp)
            await self.run_judged_turn(inp, history)

    async def run_judged_turn(self, inp: AgentInput, history: Any) -> None:
        """Call ``on_message``; if the judged turn reached nobody, report it and raise."""
        msg, tools = inp.msg, inp.tools
        turn = tools.turn
        synthetic = is_contact_hub_turn(sender_type=msg.sender_type, sender_id=msg.sender_id)
        turn.judged = self.judges_turns and not synthetic
        await self.on_message(
            msg,
            tools,
            history,
            inp.participants_msg,
            inp.contacts_msg,
            is_session_bootstrap=inp.is_session_bootstrap,
            room_id=inp.room_id,
        )
        if not turn.judged or turn.detached:
            return
        if await report_unsettled_turn(tools, room_id=inp.room_id):
            raise TurnResultAlreadyReported("turn ended without a reply")
