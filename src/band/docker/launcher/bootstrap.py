"""Clone (or check) the project's repository into the project path, when ``band.yaml`` has
a ``repo`` section. The destination is always the checked project path; repo_init's state
and context go to the sandbox-owned state path."""

from __future__ import annotations

import logging

from band.docker.launcher.errors import LaunchError
from band.docker.launcher.launch import ResolvedLaunch
from band.docker.repo_init import initialize_repo

__all__ = ["bootstrap_repository"]

logger = logging.getLogger(__name__)


def bootstrap_repository(launch: ResolvedLaunch) -> None:
    """Materialise the project from Git (nothing without ``repo``); failures are phase repo."""
    repo = launch.repo
    if repo is None:
        return
    section = {"url": repo.url, "path": str(launch.project), "branch": repo.branch}
    try:
        done = initialize_repo(
            {"repo": {**section, "index": repo.index}},
            agent_key=launch.agent_id,
            state_dir=launch.state_path,
            context_dir=launch.state_path / "context",
        )
    except LaunchError:
        raise
    except ValueError as exc:
        raise LaunchError("repo", str(exc)) from exc
    logger.info("repository at %s: cloned=%s indexed=%s", launch.project, done.cloned, done.indexed)
