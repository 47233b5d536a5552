"""Adapter-owned cleanup callbacks and the host-ownership rules around them."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from .exceptions import BandConfigError

__all__ = ["CleanupCallback", "CleanupRegistry"]

CleanupCallback = Callable[[], Awaitable[Any]]

DISPOSED = "Adapter resources are disposed; build fresh resources, tool closures, adapter and host"
IN_USE = "Adapter is already in use by another host; use that host or build a separate adapter"
SEALED = "Register cleanup before starting the host"
NOT_CALLABLE = "Pass a zero-argument async callable, such as client.aclose, not client.aclose()"
NOT_AWAITABLE = "Cleanup callback must return an awaitable; pass a zero-argument async callable"
FAILED = "Adapter cleanup failed; retry stop() or shutdown() on the same host"


class CleanupRegistry:
    """Callbacks run last-registered-first at stop; failures stay pending for a retry."""

    def __init__(self) -> None:
        self._pending: list[tuple[int, CleanupCallback]] = []
        self._count = 0
        self._sealed = False
        self._owner: object | None = None
        self._disposed = False

    def add(self, callback: CleanupCallback) -> None:
        if inspect.isawaitable(callback):
            if inspect.iscoroutine(callback):
                callback.close()
            raise TypeError(NOT_CALLABLE)
        if not callable(callback):
            raise TypeError(NOT_CALLABLE)
        if self._sealed:
            raise BandConfigError(SEALED)
        self._count += 1
        self._pending.append((self._count, callback))

    @property
    def has_callbacks(self) -> bool:
        return self._count > 0

    def accept(self, host: object) -> None:
        """Seal registrations and bind callback-owning adapters to one host."""
        if self._disposed:
            raise BandConfigError(DISPOSED)
        if self._count and self._owner is not None and self._owner is not host:
            raise BandConfigError(IN_USE)
        self._sealed = True
        if self._count:
            self._owner = host

    async def run(self, host: object | None = None) -> None:
        """Run pending callbacks in reverse order; raise an ExceptionGroup if any failed."""
        errors: list[Exception] = []
        still_pending: list[tuple[int, CleanupCallback]] = []
        for number, callback in reversed(self._pending):
            try:
                result = callback()
                if not inspect.isawaitable(result):
                    raise TypeError(NOT_AWAITABLE)
                await result
            except Exception as exc:
                name = getattr(callback, "__qualname__", repr(callback))
                exc.add_note(f"Adapter cleanup registration {number}: {name}")
                errors.append(exc)
                still_pending.append((number, callback))
        self._pending = sorted(still_pending, key=lambda item: item[0])
        if errors:
            raise ExceptionGroup(FAILED, errors)
        if self._count:
            self._disposed = True
        self._owner = None
        self._sealed = False
