"""Host-wide single-instance guard: one running process per agent id on a machine.

Two processes of one agent steal each other's room messages and split a conversation, so
``Agent.start`` takes an exclusive, non-blocking lock on ``<tempdir>/band-agent-<id>.lock``
(an open file descriptor: the OS drops it when the process dies, crashes included; the file
is never removed). Only processes sharing that temp dir contend; across containers or hosts
use ``ConflictPolicy.REJECT`` and the platform refuses the second connection.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from band.core.exceptions import AgentAlreadyRunningError, BandConfigError

__all__ = ["SingleInstanceGuard", "lock_path", "release_all_held"]

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the guard is inert there
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)
# Guards holding their lock in this process (harnesses that kill an agent without
# unwinding it release them with release_all_held).
_held: dict[str, SingleInstanceGuard] = {}


def lock_path(agent_id: str, lock_dir: str | Path | None = None) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in agent_id)
    return Path(lock_dir or tempfile.gettempdir()) / f"band-agent-{safe}.lock"


def _running_elsewhere(agent_id: str, path: Path) -> AgentAlreadyRunningError:
    return AgentAlreadyRunningError(
        f"Agent {agent_id} is already running on this host (lock: {path}). "
        "Two instances of one agent steal each other's room messages and split "
        "conversations — stop the other process first, or set "
        "AgentConfig(single_instance=False) to bypass the guard."
    )


def release_all_held() -> list[str]:
    """Release every lock this process still holds; the agent ids."""
    released = list(_held)
    for guard in list(_held.values()):
        guard.release()
    return released


class SingleInstanceGuard:
    """The run lock of one agent id (``acquire`` fails fast; ``release`` is idempotent)."""

    def __init__(self, agent_id: str, *, lock_dir: str | Path | None = None) -> None:
        self.agent_id = agent_id
        self.lock_path = lock_path(agent_id, lock_dir)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock, or raise ``AgentAlreadyRunningError`` (another holder, any process)."""
        if self._fd is not None:
            return
        if self.agent_id in _held:
            raise _running_elsewhere(self.agent_id, self.lock_path)
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise BandConfigError(
                f"Cannot open the single-instance lock file {self.lock_path} for agent "
                f"{self.agent_id}: {exc}. Fix its permissions, or set "
                "AgentConfig(single_instance=False) to bypass the guard."
            ) from exc
        if fcntl is None:
            logger.warning("No file locking here: the single-instance guard is inert")
        else:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise _running_elsewhere(self.agent_id, self.lock_path) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        _held[self.agent_id] = self

    def release(self) -> None:
        if self._fd is None:
            return
        if fcntl is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None
        if _held.get(self.agent_id) is self:
            del _held[self.agent_id]

    @property
    def path(self) -> Path:
        return self.lock_path
