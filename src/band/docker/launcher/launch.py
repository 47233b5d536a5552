"""``ResolvedLaunch``: everything a launch needs, checked, handed from phase to phase."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from band.docker.launcher.config import RepoSection

__all__ = ["ResolvedLaunch"]


class ResolvedLaunch(BaseModel):
    """The checked launch: paths, identity, endpoints, credentials (never logged)."""

    model_config = ConfigDict(extra="forbid")

    workspace: Path
    project: Path
    entrypoint: Path
    environment_path: Path
    state_path: Path
    cache_path: Path
    log_path: Path
    uv_binary: Path
    agent_id: str
    rest_url: str
    ws_url: str
    credentials: dict[str, str] = {}
    repo: RepoSection | None = None
