"""``AdapterDisposal``: one adapter's cleanup callbacks and its bond to the host that owns it.

Callbacks registered before the host starts run last-first when it stops; a failing one
stays registered (with a note naming it) so a retried stop runs it again, and the failures
come back as one ``ExceptionGroup``. An adapter with callbacks or an owner belongs to one
host: another host is refused while it is in use, and once its resources are disposed it
cannot be started again (build fresh resources, adapter and host).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from band.core.exceptions import BandConfigError, CleanupIncompleteError

__all__ = ["AdapterDisposal", "CleanupCallback"]

CleanupCallback = Callable[[], Awaitable[Any]]
logger = logging.getLogger(__name__)

DISPOSED = "Adapter resources are disposed; build fresh resources, tool closures, adapter and host"
IN_USE = "Adapter is already in use by another host; use that host or build a separate adapter"
SEALED = "Register cleanup before starting the host"
NOT_CALLABLE = "Pass a zero-argument async callable, such as client.aclose, not client.aclose()"
NOT_AWAITABLE = "Cleanup callback must return an awaitable; pass a zero-argument async callable"
FAILED = "Adapter cleanup failed; retry stop() or shutdown() on the same host"
INCOMPLETE = "Adapter cleanup is incomplete; retry stop() or shutdown() on the same host"
RECURSIVE = (
    "Return from the cleanup callback; request host shutdown from outside this cleanup attempt"
)


@dataclass
class AdapterDisposal:
    """The cleanup state of one adapter instance (``callbacks`` by registration number)."""

    callbacks: dict[int, CleanupCallback] = field(default_factory=dict)
    owner: object | None = None
    sealed: bool = False
    builtin_started: bool = False
    builtin_done: bool = False
    disposing: bool = False
    finished: bool = False
    task: asyncio.Task[object] | None = None

    def register(self, callback: CleanupCallback) -> None:
        """Add a zero-argument async callable, before the host starts."""
        if inspect.iscoroutine(callback):
            callback.close()
            raise TypeError(NOT_CALLABLE)
        if not callable(callback):
            raise TypeError(NOT_CALLABLE)
        if self.sealed:
            raise BandConfigError(SEALED)
        self.callbacks[max(self.callbacks, default=0) + 1] = callback

    @property
    def requires_ownership(self) -> bool:
        return bool(self.callbacks) or self.owner is not None

    def check_owner(self, owner: object, *, exclusive: bool) -> None:
        """Refuse a host that may not start this adapter now."""
        if self.finished and self.requires_ownership:
            raise BandConfigError(DISPOSED)
        foreign = self.owner is not None and self.owner is not owner
        unowned_running = self.owner is None and self.builtin_started
        if exclusive and not self.finished and (foreign or unowned_running):
            raise BandConfigError(IN_USE)
        if self.disposing and not self.finished:
            raise CleanupIncompleteError(INCOMPLETE)

    def accept(self, owner: object, *, exclusive: bool) -> None:
        """Seal registrations; an exclusive host becomes the owner."""
        if self.finished:
            self.builtin_started = self.builtin_done = self.disposing = self.finished = False
        if exclusive:
            self.owner = owner
        self.sealed = True

    def arm_framework(self) -> None:
        """The framework's own resources are live and need their cleanup."""
        self.builtin_started = True
        self.builtin_done = False

    async def finish_framework(self, cleanup: CleanupCallback) -> None:
        """Run the framework's cleanup once (also when the host never started)."""
        if self.builtin_done:
            return
        if self.builtin_started or not self.sealed:
            await cleanup()
        self.builtin_done = True

    async def finish_resources(self, finalize: CleanupCallback) -> None:
        """``finalize``, then the registered callbacks; finished once both succeed."""
        if self.finished:
            return
        await finalize()
        await self.run_callbacks()
        self.finished = True

    def refuse_recursive_shutdown(self) -> None:
        """A cleanup callback must not shut its own host down from inside the attempt."""
        if self.task is not None and self.task is asyncio.current_task():
            raise BandConfigError(RECURSIVE)

    async def run_callbacks(self) -> None:
        """Run pending callbacks last-first; the failed ones stay for a retry."""
        errors: list[Exception] = []
        for number, callback in reversed(list(self.callbacks.items())):
            logger.debug("running adapter cleanup registration %d", number)
            try:
                result = callback()
                if not inspect.isawaitable(result):
                    raise TypeError(NOT_AWAITABLE)
                await result
            except Exception as exc:
                note = f"Adapter cleanup registration {number}: " + getattr(
                    callback, "__qualname__", type(callback).__name__
                )
                if note not in getattr(exc, "__notes__", ()):
                    exc.add_note(note)
                errors.append(exc)
            else:
                del self.callbacks[number]
        if errors:
            raise ExceptionGroup(FAILED, errors)
