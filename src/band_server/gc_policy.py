"""Garbage collection for a node that holds thousands of long-lived sockets.

Each idle socket keeps dozens of objects the cyclic collector tracks (uvicorn's protocol,
wsproto's and h11's state, the endpoint's coroutines and timers), on top of the many from
start-up (modules, schemas, tables). CPython's full collection walks all of them, and it runs
whenever the objects that survived younger collections grow by a quarter, which is exactly
what a connect storm does: the pauses grew longer than a join may take (docs/decisions.md,
"Idle sockets: memory, handshakes, the collector").

Policy, installed by the app's lifespan beside ``server_stack.steady_heap`` (which freezes what
start-up built and raises the young threshold):
- after every full collection, the survivors are frozen too (``gc.freeze``): the next full
  collection walks only objects made since. Frozen objects are still freed by
  reference counting, which is how a closed socket's objects go (a closed socket leaves no
  cyclic garbage);
- every ``full_every`` seconds everything is unfrozen and collected once, so cyclic garbage
  that formed among frozen objects is not kept for longer than that;
- uninstalled with the app (unfrozen again); installs nest, for several apps in one process.
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
