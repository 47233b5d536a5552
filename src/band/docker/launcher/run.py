"""The launch: check everything that can fail fast, then sync and exec the entrypoint.

``resolve_launch`` runs the checks (identity, ``band.yaml``, endpoints, paths, credentials)
and returns a ``ResolvedLaunch``; ``execute`` bootstraps the repository, syncs the locked
dependencies and replaces this process (``os.execve``) with the customer's entrypoint on the
project's interpreter, so signals reach customer code directly. ``main`` logs a failure as one
line naming its phase and exits 1.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from band.config.logs import LogSettings
from band.docker.launcher.bootstrap import bootstrap_repository
from band.docker.launcher.config import (
    AGENT_HOME,
    DEFAULT_CONFIG_FILENAME,
    LauncherEnv,
    load_workspace_config,
    resolve_agent_id,
    resolve_endpoints,
)
from band.docker.launcher.credentials import resolve_credentials
from band.docker.launcher.errors import LaunchError
from band.docker.launcher.launch import ResolvedLaunch
from band.docker.launcher.paths import require_project_materialized, resolve_paths
from band.docker.launcher.sync import sync_customer_environment
from band.logging_config import FormatStyle, LoggingStyle

__all__ = [
    "AGENT_UID",
    "build_child_environment",
    "configure_logging",
    "current_uid",
    "execute",
    "locate_config_path",
    "main",
    "require_agent_uid",
    "require_band_api_key",
    "resolve_launch",
    "resolve_uv_binary",
    "resolve_workspace",
]

logger = logging.getLogger(__name__)

AGENT_UID = 1000


def current_uid() -> int:
    """The uid this process runs as (a seam for tests)."""
    return os.getuid()


def require_agent_uid() -> None:
    """The launcher runs as the image's non-root agent user."""
    uid = current_uid()
    if uid != AGENT_UID:
        raise LaunchError("identity", f"launcher must run as uid {AGENT_UID}, got uid {uid}")


def resolve_workspace(env: LauncherEnv) -> Path:
    """The sandbox's mounted workspace (``WORKSPACE_DIR``), which must exist."""
    if not env.workspace_dir:
        raise LaunchError("config", "WORKSPACE_DIR is not set — is this a Docker Sandbox?")
    workspace = Path(env.workspace_dir).resolve()
    if not workspace.is_dir():
        raise LaunchError("config", f"workspace does not exist: {workspace}")
    return workspace


def locate_config_path(env: LauncherEnv, workspace: Path) -> Path:
    """``BAND_KIT_CONFIG_PATH`` when set, else ``band.yaml`` in the workspace."""
    if env.band_kit_config_path:
        return Path(env.band_kit_config_path)
    return workspace / DEFAULT_CONFIG_FILENAME


def require_band_api_key(credentials: dict[str, str]) -> None:
    if not credentials.get("BAND_API_KEY"):
        raise LaunchError(
            "credentials",
            "BAND_API_KEY missing: set it in the environment or provide it via the "
            "configured workspace env file",
        )


def resolve_uv_binary(env: LauncherEnv) -> Path:
    if not env.band_sdk_uv:
        raise LaunchError("sync", "BAND_SDK_UV is not set — image contract broken")
    return Path(env.band_sdk_uv)


def resolve_launch(env: LauncherEnv | None = None) -> ResolvedLaunch:
    """Run every fail-fast check and return the checked launch."""
    env = env or LauncherEnv()
    require_agent_uid()
    workspace = resolve_workspace(env)
    config = load_workspace_config(locate_config_path(env, workspace))
    rest_url, ws_url = resolve_endpoints(config, env)
    agent_id = resolve_agent_id(config, env)
    paths = resolve_paths(config, env, workspace)
    credentials = resolve_credentials(config, env, workspace)
    require_band_api_key(credentials)
    return ResolvedLaunch(
        workspace=workspace,
        **paths._asdict(),
        uv_binary=resolve_uv_binary(env),
        agent_id=agent_id,
        rest_url=rest_url,
        ws_url=ws_url,
        credentials=credentials,
        repo=config.repo,
    )


def build_child_environment(launch: ResolvedLaunch) -> dict[str, str]:
    """The entrypoint's environment: ours, the credentials, identity and endpoints, HOME."""
    return {
        **os.environ,
        **launch.credentials,
        "BAND_AGENT_ID": launch.agent_id,
        "BAND_REST_URL": launch.rest_url,
        "BAND_WS_URL": launch.ws_url,
        "HOME": AGENT_HOME,
    }


def execute(launch: ResolvedLaunch) -> None:
    """Bootstrap, sync, then exec the entrypoint (returns only by raising)."""
    bootstrap_repository(launch)
    require_project_materialized(launch.project, launch.entrypoint)
    sync_customer_environment(launch)
    interpreter = launch.environment_path / "bin" / "python"
    if not interpreter.is_file():
        raise LaunchError("exec", f"customer interpreter missing after sync: {interpreter}")
    child = build_child_environment(launch)
    os.chdir(launch.project)
    logger.info("launching %s with %s", launch.entrypoint, interpreter)
    os.execve(interpreter, [str(interpreter), str(launch.entrypoint)], child)  # nosec B606


def configure_logging(*, log_file: Path | None = None) -> None:
    """Plain one-line logs to the console (``BAND_LOG_STREAM``) and, when given, a file."""
    settings = LogSettings.create(
        log_file=log_file,
        log_console_style=LoggingStyle.STANDARD,
        log_file_style=LoggingStyle.STANDARD,
    )
    settings.for_application().configure(
        fmt="{asctime} {name} {levelname} {message}",
        fmt_style=FormatStyle.BRACE,
        datefmt="%Y-%m-%dT%H:%M:%S%z",
    )


def main() -> None:
    """``python -m band.docker.launcher``: launch, or log why not and exit 1."""
    configure_logging()
    os.environ["HOME"] = AGENT_HOME
    try:
        launch = resolve_launch()
        configure_logging(log_file=launch.log_path / "launcher.log")
        execute(launch)
    except (LaunchError, OSError) as exc:
        logger.error("Launch failed: %s", exc)
        raise SystemExit(1) from exc
