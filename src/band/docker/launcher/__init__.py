"""band-kit's launcher: boots a customer's locked Python project as a Band agent in a sandbox.

Run as ``$BAND_SDK_PYTHON -m band.docker.launcher`` by the kit's startup command, as the
image's non-root agent user. One module per step: ``config`` (``band.yaml`` and the
environment), ``paths`` (every path checked against where it may be), ``credentials`` (the
opt-in workspace secrets file and its guards), ``bootstrap`` (clone the project),
``sync`` (``uv sync --locked``), ``run`` (all of it, then ``os.execve`` of the entrypoint);
``launch`` holds the ``ResolvedLaunch`` they share. Every failure is a ``LaunchError`` naming
its phase, and no message carries a secret.
"""

from __future__ import annotations

from band.docker.launcher.bootstrap import bootstrap_repository
from band.docker.launcher.config import (
    AGENT_HOME,
    DEFAULT_REST_URL,
    DEFAULT_WS_URL,
    PLACEHOLDER_AGENT_ID,
    CredentialSource,
    LauncherEnv,
    RepoSection,
    WorkspaceConfig,
    load_workspace_config,
)
from band.docker.launcher.credentials import (
    CredentialName,
    load_file_credentials,
    resolve_credentials,
)
from band.docker.launcher.errors import LaunchError
from band.docker.launcher.launch import ResolvedLaunch
from band.docker.launcher.run import (
    AGENT_UID,
    build_child_environment,
    execute,
    main,
    resolve_launch,
)
from band.docker.launcher.sync import sync_customer_environment

__all__ = [
    "AGENT_HOME",
    "AGENT_UID",
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "PLACEHOLDER_AGENT_ID",
    "CredentialName",
    "CredentialSource",
    "LaunchError",
    "LauncherEnv",
    "RepoSection",
    "ResolvedLaunch",
    "WorkspaceConfig",
    "bootstrap_repository",
    "build_child_environment",
    "execute",
    "load_file_credentials",
    "load_workspace_config",
    "main",
    "resolve_credentials",
    "resolve_launch",
    "sync_customer_environment",
]
