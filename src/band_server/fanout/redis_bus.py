"""Redis pub/sub fan-out for several nodes (needs the ``redis`` extra)."""

from __future__ import annotations

from .bus import Broadcast, Deliver


class RedisBus:
    def __init__(self, url: str) -> None:
        self.url = url

    async def start(self, deliver: Deliver) -> None:
        raise NotImplementedError("the Redis bus is not built yet")

    async def publish(self, broadcast: Broadcast) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        return None
