"""A node's presence lease, renewed from a thread of its own (needs the ``redis`` extra).

How it works: docs/internals/server.md, "The presence lease".

The keeper stops renewing once the loop stalls for ``stall`` seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from redis import Redis

log = logging.getLogger("band_server.fanout")


class LeaseKeeper:
    """Renews one node's lease every ``interval`` seconds while its loop ticks."""

    def __init__(
        self,
        url: str,
        *,
        nodes_key: str,
        node_id: str,
        hash_key: str,
        ttl: float,
        interval: float,
        stall: float,
    ) -> None:
        if stall <= interval:
            raise ValueError("the presence stall limit must be longer than the interval")
        self.url = url
        self.ttl = ttl
        self.interval = interval
        self.stall = stall
        self._nodes_key = nodes_key
        self._node_id = node_id
        self._hash_key = hash_key
        self._ticked = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failing = False
        self._stalled = False

    def tick(self) -> None:
        """The loop is alive: called by the presence cycle each time it comes round."""
        self._ticked = time.monotonic()

    def start(self) -> None:
        self.tick()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="band-presence-lease", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop renewing; returns once the thread has ended (at most one Redis timeout)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=self.ttl)

    def _run(self) -> None:
        from redis import Redis

        client = Redis.from_url(
            self.url, socket_timeout=self.ttl / 2, socket_connect_timeout=self.ttl / 2
        )
        try:
            while not self._stop.wait(self.interval):
                if time.monotonic() - self._ticked > self.stall:
                    if not self._stalled:
                        log.warning(
                            "cluster presence: the event loop has not come round for %.1fs: "
                            "letting this node's lease lapse",
                            time.monotonic() - self._ticked,
                        )
                    self._stalled = True
                    continue
                self._stalled = False
                self._renew(client)
        finally:
            client.close()

    def _renew(self, client: Redis) -> None:
        try:
            pipe = client.pipeline(transaction=True)
            pipe.zadd(self._nodes_key, {self._node_id: time.time() + self.ttl}, xx=True, gt=True)
            pipe.pexpire(self._hash_key, int(self.ttl * 1000))
            pipe.execute()
        except Exception as exc:  # the cycle reports Redis being away; a line here too
            if not self._failing:
                log.warning("cluster presence: lease renewal failed (%r)", exc)
            self._failing = True
        else:
            self._failing = False
