"""Host-wide single-instance lock: one process per agent id on a machine.

Two processes of one agent steal each other's room messages, so ``Agent.start`` takes an
exclusive ``flock`` on ``<tempdir>/band-agent-<agent_id>.lock``. The OS drops the lock when the
process dies, so a crash never leaves a stale lock behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from band.core.exceptions import AgentAlreadyRunningError

__all__ = ["InstanceLock", "lock_path"]

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the guard is best-effort there
    fcntl = None  # type: ignore[assignment]


def lock_path(agent_id: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in agent_id)
    return Path(tempfile.gettempdir()) / f"band-agent-{safe}.lock"


class InstanceLock:
    """An exclusive, non-blocking lock file for one agent id."""

    def __init__(self, agent_id: str) -> None:
        self.agent_id = agent_id
        self.path = lock_path(agent_id)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock or raise ``AgentAlreadyRunningError``."""
        if self._fd is not None or fcntl is None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise AgentAlreadyRunningError(
                f"Agent {self.agent_id} is already running on this host (lock: {self.path}). "
                "Two instances of one agent steal each other's room messages and split "
                "conversations — stop the other process first, or set "
                "AgentConfig(single_instance=False) to bypass the guard."
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is None or fcntl is None:
            return
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None
