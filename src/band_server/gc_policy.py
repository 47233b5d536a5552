"""Garbage collection for a node that holds thousands of long-lived sockets.

How it works: docs/internals/server.md, "Garbage collection policy".

Installed by the app's lifespan; installs nest, for several apps in one process.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

FULL_EVERY_SECONDS = 1800.0


class FrozenSurvivors:
    """Freeze what survives each full collection; unfreeze and collect all now and then."""

    def __init__(self, full_every: float = FULL_EVERY_SECONDS) -> None:
        self.full_every = full_every
        self.full_collections = 0
        self._timer: asyncio.TimerHandle | None = None
        self._installed = False

    def install(self) -> None:
        if self._installed:
            return
        self._installed = True
        _acquire(self)
        self._schedule()

    def uninstall(self) -> None:
        if not self._installed:
            return
        self._installed = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        _release(self)

    def _schedule(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.full_every, self._collect_all)

    def _collect_all(self) -> None:
        collect_everything()
        self._schedule()


_users: list[FrozenSurvivors] = []


def _after_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info.get("generation") == 2:
        for user in _users:
            user.full_collections += 1
        gc.freeze()


def collect_everything() -> None:
    """One full collection of every object, frozen ones included; the survivors refrozen."""
    gc.unfreeze()
    gc.collect()  # its "stop" callback freezes the survivors again


def _acquire(user: FrozenSurvivors) -> None:
    if not _users:
        gc.callbacks.append(_after_collection)
    _users.append(user)


def _release(user: FrozenSurvivors) -> None:
    _users.remove(user)
    if not _users:
        if _after_collection in gc.callbacks:
            gc.callbacks.remove(_after_collection)
        gc.unfreeze()
