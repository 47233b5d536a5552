"""``Agent``: the host that connects an adapter to Band and runs it until told to stop.

Start order: single-instance lock -> ``GET /agent/me`` (description must be non-empty) ->
``adapter.platform`` -> adapter start (``on_started``) -> socket, rooms, ``/next`` drains ->
log ``Agent started: <name> (band-sdk 6.0.1)``. Stop order: every room settles and gets
``on_cleanup`` -> link disconnects -> ``cleanup_all`` and ``add_cleanup`` callbacks (last
registered first) -> lock released -> ``Agent stopped: <name> (graceful=<bool>)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import weakref
from enum import StrEnum
from pathlib import Path
from typing import Any, Self, cast

import httpx

from band.core.exceptions import CleanupIncompleteError
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformConnection
from band.platform.socket import SocketTimings
from band_protocol import tracing

from .config import AgentConfig, SessionConfig, load_agent_config, resolve_urls
from .contacts import ContactEventConfig
from .platform_runtime import ParticipantCallback, PlatformRuntime
from .room_execution import ExecutionContext
from .single_instance import SingleInstanceGuard
from .startup import accept_adapter, dispose_adapter, start_adapter
from .toolkit import make_room_tools

__all__ = ["SDK_API_VERSION", "Agent", "CleanupPhase", "TimeoutNotSet", "running_agents"]

log = logging.getLogger("band.agent")

# The band-sdk API version this implementation follows (what the start line reports).
SDK_API_VERSION = "6.0.1"
DEFAULT_SHUTDOWN_TIMEOUT = 30.0

_RUNNING: weakref.WeakSet[Agent] = weakref.WeakSet()


def running_agents() -> list[Agent]:
    """Agents of this process that are started and not yet stopped."""
    return list(_RUNNING)


class CleanupPhase(StrEnum):
    """Shutdown work an agent keeps until it succeeds; tried in this order, runtime first.

    A failed phase stays pending (with the single-instance lock) and the next ``stop()``
    retries it; a failing runtime does not skip the adapter's cleanup.
    """

    RUNTIME = "runtime"
    ADAPTER = "adapter"


class TimeoutNotSet:
    """The "no shutdown timeout given" marker (one instance), unlike an explicit None."""

    _instance: TimeoutNotSet | None = None

    def __new__(cls) -> Self:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cast(Self, cls._instance)

    def __repr__(self) -> str:
        return "<TIMEOUT_NOT_SET>"


TIMEOUT_NOT_SET = TimeoutNotSet()


class Agent:
    """Runs one adapter as one Band agent: ``await Agent.from_config(...).run()``."""

    def __init__(self, runtime: PlatformRuntime, adapter: Any, preprocessor: Any = None) -> None:
        self._runtime = runtime
        self.adapter = adapter
        self.preprocessor = preprocessor
        self._lock = SingleInstanceGuard(runtime.agent_id)
        self._started = False
        self._starting = False
        self._stop_requested = asyncio.Event()
        self._stop_timeout: float | TimeoutNotSet | None = TIMEOUT_NOT_SET
        self._cleanup_pending: set[CleanupPhase] = set()

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        adapter: Any,
        agent_id: str,
        api_key: str,
        ws_url: str | None = None,
        rest_url: str | None = None,
        config: AgentConfig | None = None,
        session_config: SessionConfig | None = None,
        contact_config: ContactEventConfig | None = None,
        on_participant_added: ParticipantCallback | None = None,
        on_participant_removed: ParticipantCallback | None = None,
        preprocessor: Any = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        socket_timings: SocketTimings | None = None,
    ) -> Agent:
        """Build an agent; URLs default to ``BAND_WS_URL`` / ``BAND_REST_URL``, then production.

        ``transport`` swaps the REST network (e.g. ``httpx.ASGITransport``) and
        ``socket_timings`` shrinks socket timings, both for tests.
        """
        ws, rest = resolve_urls(ws_url, rest_url)
        runtime = PlatformRuntime(
            agent_id,
            api_key,
            ws,
            rest,
            config,
            session_config,
            contact_config,
            on_participant_added,
            on_participant_removed,
            transport=transport,
            socket_timings=socket_timings,
        )
        return cls(runtime, adapter, preprocessor)

    @classmethod
    def from_config(
        cls, name: str, *, adapter: Any, config_path: str | Path | None = None, **kwargs: Any
    ) -> Agent:
        """``create`` with ``agent_id`` / ``api_key`` read from ``agent_config.yaml``."""
        agent_id, api_key = load_agent_config(name, config_path=config_path)
        return cls.create(adapter=adapter, agent_id=agent_id, api_key=api_key, **kwargs)

    # -- properties --------------------------------------------------------------------------

    @property
    def runtime(self) -> PlatformRuntime:
        return self._runtime

    @property
    def agent_id(self) -> str:
        return self._runtime.agent_id

    @property
    def agent_name(self) -> str:
        return self._runtime.agent_name

    @property
    def agent_description(self) -> str:
        return self._runtime.agent_description

    @property
    def is_running(self) -> bool:
        return self._started

    @property
    def contact_config(self) -> ContactEventConfig:
        return self._runtime.contact_config

    @property
    def is_contacts_subscribed(self) -> bool:
        """Whether the agent receives its contact events (a strategy or broadcasts are on)."""
        return self._runtime.contacts is not None

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect and start serving rooms; unwinds and re-raises if any step fails."""
        if self._started or self._starting:
            log.warning("Agent already started")
            return
        if self._cleanup_pending:
            raise CleanupIncompleteError("Agent cleanup is incomplete; call stop() to retry it")
        self._starting = True
        self._stop_requested = asyncio.Event()
        tracing.configure("band-agent")  # on only when OTEL_EXPORTER_OTLP_ENDPOINT is set
        try:
            if self._runtime.config.single_instance:
                self._lock.acquire()
            await self._runtime.initialize()
            rt = self._runtime
            self.adapter.platform = PlatformConnection(
                rt.agent_id, rt.api_key, rt.rest_url, rt.ws_url
            )
            await self._start_adapter()
            await rt.start(self.adapter, self._make_tools, self.preprocessor)
        except BaseException:
            self._starting = False
            with contextlib.suppress(Exception):
                await self._runtime.stop(0)
            self._lock.release()
            raise
        self._starting = False
        self._started = True
        _RUNNING.add(self)
        log.info("Agent started: %s (band-sdk %s)", self.agent_name, SDK_API_VERSION)

    async def _start_adapter(self) -> None:
        rt = self._runtime
        accept_adapter(self.adapter, self)
        await start_adapter(
            self.adapter,
            agent_name=rt.agent_name,
            agent_description=rt.agent_description,
            feature_flags=rt.feature_flags,
        )

    def _make_tools(self, ctx: ExecutionContext) -> AgentToolsProtocol:
        link = self._runtime.link
        assert link is not None, "tools are built only while the runtime runs"  # nosec B101 # narrows for mypy: see its message
        return make_room_tools(
            link.api,
            ctx.room_id,
            participants=ctx.participants,
            agent_id=self.agent_id,
            agent_name=self.agent_name,
            adapter=self.adapter,
            posts_missing_reply=self._runtime.session_config.report_turn_failures_to_room,
        )

    async def run_forever(self, *, install_signal_handlers: bool = True) -> None:
        """Block until SIGINT/SIGTERM, ``stop()``, or the connection ends for good."""
        if not self._started:
            return
        loop = asyncio.get_running_loop()
        installed: list[signal.Signals] = []
        if install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(sig, self._stop_requested.set)
                    installed.append(sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass  # not the main thread, or no signal support
        link_task = asyncio.ensure_future(self._runtime.run_forever())
        stop_task = asyncio.ensure_future(self._stop_requested.wait())
        try:
            await asyncio.wait({link_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
            if link_task.done():
                link_task.result()  # raises when the socket ended on an error
        finally:
            for task in (link_task, stop_task):
                task.cancel()
            for sig in installed:
                loop.remove_signal_handler(sig)

    async def run(
        self,
        shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT,
        *,
        install_signal_handlers: bool = True,
    ) -> None:
        """``start()``, serve until a signal (or the connection ends), then ``stop()``."""
        self._stop_timeout = shutdown_timeout
        await self.start()
        try:
            await self.run_forever(install_signal_handlers=install_signal_handlers)
        except BaseException:
            try:
                await self.stop(shutdown_timeout)
            except Exception:
                log.exception("Error while stopping after a failure")
            raise
        await self.stop(shutdown_timeout)

    def request_stop(self) -> None:
        """Ask ``run()`` / ``run_forever()`` to return (like SIGTERM)."""
        self._stop_requested.set()

    async def stop(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Stop serving; True when no turn had to be cancelled. Failures stay retryable."""
        if not self._started and not self._cleanup_pending:
            return True
        self._stop_requested.set()
        errors: list[Exception] = []
        graceful = True
        if self._started:
            self._started = False
            _RUNNING.discard(self)
            self._cleanup_pending |= {CleanupPhase.RUNTIME, CleanupPhase.ADAPTER}
        if CleanupPhase.RUNTIME in self._cleanup_pending:
            try:
                graceful = await self._runtime.stop(timeout)
                self._cleanup_pending.discard(CleanupPhase.RUNTIME)
            except Exception as exc:
                errors.append(exc)
        if CleanupPhase.ADAPTER in self._cleanup_pending:
            settled = CleanupPhase.RUNTIME not in self._cleanup_pending
            try:
                if await dispose_adapter(self.adapter, work_settled=settled):
                    self._cleanup_pending.discard(CleanupPhase.ADAPTER)
            except ExceptionGroup as group:
                errors.extend(group.exceptions)
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise ExceptionGroup("Agent cleanup remains incomplete", errors)
        self._lock.release()
        if tracing.TRACING.on:
            await asyncio.to_thread(tracing.shutdown)  # the spans still buffered go out now
        log.info("Agent stopped: %s (graceful=%s)", self.agent_name, graceful)
        return graceful

    async def __aenter__(self) -> Agent:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        # run()'s shutdown_timeout when it was given (None: stop now), else the default
        timeout = self._stop_timeout
        await self.stop(DEFAULT_SHUTDOWN_TIMEOUT if isinstance(timeout, TimeoutNotSet) else timeout)
