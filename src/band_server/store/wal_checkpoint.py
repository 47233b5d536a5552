"""SQLite's WAL copied into the database file on a thread of its own, beside the writer.

How it works: docs/internals/server.md, "The WAL checkpointer".

Durability does not change: a commit is in the WAL before it is answered.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

__all__ = ["PASS_DELAY", "WRITER_CHECKPOINT_PAGES", "Checkpointer"]

log = logging.getLogger(__name__)

PASS_DELAY = 0.1
"""Seconds a pass waits after the nudge that woke it: later batches' pages join it."""

WRITER_CHECKPOINT_PAGES = 16_384
"""The writer connection's ``wal_autocheckpoint`` (SQLite's default: 1,000): 32 MiB of WAL at
2 KiB pages, ~1 s of a mention burst at 3,000/s."""


class Checkpointer:
    """Passive checkpoints of the database at ``path`` on a daemon thread, after commits.

    :meth:`nudge` (from the loop, once a batch) costs an event's ``set``; the thread starts on
    the first one and sleeps while nothing is committed. A failed pass is logged and its
    connection opened again on the next one: the writer's own autocheckpoint still bounds the
    WAL.
    """

    def __init__(self, path: str, *, delay: float = PASS_DELAY) -> None:
        self.path = path
        self.delay = delay
        self.passes = 0
        self._due = threading.Event()
        self._stopped = threading.Event()  # (waited on between a nudge and its pass)
        self._thread: threading.Thread | None = None

    def nudge(self) -> None:
        """Something was committed: a pass will follow (one for all nudges before it starts)."""
        if self._thread is None:
            if self._stopped.is_set():
                return
            self._thread = threading.Thread(
                target=self._serve, name="sqlite-checkpoint", daemon=True
            )
            self._thread.start()
        if not self._due.is_set():  # (set takes the event's lock, is_set reads a field)
            self._due.set()

    def stop(self, timeout: float = 5.0) -> None:
        """End the thread after the pass under way (if any); a pass not begun is not made."""
        self._stopped.set()
        self._due.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)

    def _serve(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while True:
                self._due.wait()
                if self._stopped.wait(self.delay):
                    return
                self._due.clear()
                try:
                    if conn is None:
                        conn = _connect(self.path)
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.passes += 1
                except sqlite3.Error as exc:
                    log.warning("WAL checkpoint of %s failed: %r", self.path, exc)
                    if conn is not None:
                        conn.close()
                    conn = None
        finally:
            if conn is not None:
                conn.close()


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    # A checkpoint waits for no one: a busy lock ends the pass, the next nudge tries again.
    conn.execute("PRAGMA busy_timeout=0")
    conn.execute("PRAGMA synchronous=FULL")
    return conn
