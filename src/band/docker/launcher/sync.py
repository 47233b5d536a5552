"""``uv sync --locked``: the customer's locked dependencies into the sandbox-owned venv.

The image's pinned uv installs exactly what ``uv.lock`` says (nothing is resolved at startup;
a missing or stale lock fails with guidance), on the image's own interpreter, never
downloading one. A file lock in the state directory keeps two restarts from building one venv
at the same time.
"""

from __future__ import annotations

import logging
import os
import subprocess  # nosec B404 # runs git, uv or sbx with fixed argv, no shell
import sys
from pathlib import Path

from filelock import FileLock, Timeout

from band.docker.launcher.config import AGENT_HOME
from band.docker.launcher.errors import LaunchError
from band.docker.launcher.launch import ResolvedLaunch

__all__ = [
    "require_locked_project",
    "run_locked_sync",
    "sync_customer_environment",
    "sync_environment",
]

logger = logging.getLogger(__name__)

SYNC_LOCK_TIMEOUT_S = 600.0
ERROR_TAIL_LINES = 15


def require_locked_project(launch: ResolvedLaunch) -> None:
    """The project has ``pyproject.toml`` and a committed ``uv.lock``; the image has its uv."""
    if not (launch.project / "pyproject.toml").is_file():
        raise LaunchError("sync", f"pyproject.toml not found in {launch.project}")
    if not (launch.project / "uv.lock").is_file():
        raise LaunchError(
            "sync",
            f"uv.lock not found in {launch.project} — commit a lock (`uv lock`); "
            "unlocked resolution is not supported",
        )
    if not launch.uv_binary.is_file():
        raise LaunchError("sync", f"pinned runtime uv not found at {launch.uv_binary}")


def sync_environment(launch: ResolvedLaunch) -> dict[str, str]:
    """The environment uv runs in: our venv, cache and interpreter; no interpreter downloads."""
    return {
        **os.environ,
        "UV_PROJECT_ENVIRONMENT": str(launch.environment_path),
        "UV_CACHE_DIR": str(launch.cache_path),
        "HOME": AGENT_HOME,
        "UV_PYTHON": str(Path(sys.base_prefix) / "bin" / "python3"),
        "UV_PYTHON_DOWNLOADS": "never",
    }


def run_locked_sync(launch: ResolvedLaunch) -> None:
    """Run ``uv sync --locked`` in the project; a failure carries the end of uv's output."""
    logger.info("syncing locked dependencies into %s", launch.environment_path)
    done = subprocess.run(  # nosec B603 # fixed argv, no shell
        [str(launch.uv_binary), "sync", "--locked"],
        cwd=launch.project,
        env=sync_environment(launch),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = "\n".join((done.stderr or "").strip().splitlines()[-ERROR_TAIL_LINES:])
        raise LaunchError(
            "sync",
            "locked dependency synchronization failed (is uv.lock up to date with "
            f"pyproject.toml?):\n{tail}",
        )


def sync_customer_environment(launch: ResolvedLaunch) -> None:
    """Check the project, then sync it under the state directory's lock."""
    require_locked_project(launch)
    launch.state_path.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(launch.state_path / "dependency_sync.lock"))
    try:
        lock.acquire(timeout=SYNC_LOCK_TIMEOUT_S)
    except Timeout:
        raise LaunchError(
            "sync",
            f"timed out waiting for the dependency-sync lock after {SYNC_LOCK_TIMEOUT_S:.0f}s",
        ) from None
    try:
        run_locked_sync(launch)
    finally:
        lock.release()
