"""Where the launch's files are, each checked against where it may be.

The project, entrypoint and credentials file are resolved inside the workspace (symlinks
followed; leaving it fails). The runtime paths (venv, state, cache, logs) must be absolute and
outside both the mounted workspace and the SDK home, which the sandbox owns.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from band.docker.launcher.config import DEFAULT_SDK_HOME, LauncherEnv, WorkspaceConfig
from band.docker.launcher.errors import LaunchError

__all__ = [
    "ResolvedPaths",
    "require_outside",
    "require_project_materialized",
    "resolve_inside",
    "resolve_paths",
]


class ResolvedPaths(NamedTuple):
    """The checked paths, named as ``ResolvedLaunch``'s fields."""

    project: Path
    entrypoint: Path
    environment_path: Path
    state_path: Path
    cache_path: Path
    log_path: Path


def resolve_inside(base: Path, value: str, *, name: str, phase: str) -> Path:
    """``value`` resolved against ``base``; a ``LaunchError`` when it ends up outside."""
    given = Path(value)
    resolved = (given if given.is_absolute() else base / given).resolve()
    if not resolved.is_relative_to(base.resolve()):
        raise LaunchError(phase, f"{name} escapes its permitted root {base}: {value!r}")
    return resolved


def require_outside(path: Path, *, forbidden: list[tuple[Path, str]], name: str) -> Path:
    """``path`` resolved, when it is absolute and under none of the ``forbidden`` roots."""
    if not path.is_absolute():
        raise LaunchError("paths", f"{name} must be an absolute path: {path}")
    resolved = path.resolve()
    for root, label in forbidden:
        if resolved.is_relative_to(root.resolve()):
            raise LaunchError("paths", f"{name} must live outside {label}: {resolved}")
    return resolved


def require_project_materialized(project: Path, entrypoint: Path) -> None:
    """The project directory and its entrypoint file exist."""
    if not project.is_dir():
        raise LaunchError("paths", f"project path is not a directory: {project}")
    if not entrypoint.is_file():
        raise LaunchError("paths", f"entrypoint is not a file inside the project: {entrypoint}")


def resolve_paths(config: WorkspaceConfig, env: LauncherEnv, workspace: Path) -> ResolvedPaths:
    """Check every path; a project still to be cloned (``repo``) is checked after the clone."""
    project = resolve_inside(workspace, config.project.path, name="project path", phase="paths")
    entrypoint = resolve_inside(project, config.agent.entrypoint, name="entrypoint", phase="paths")
    if config.repo is None:
        require_project_materialized(project, entrypoint)
    elif project == workspace.resolve():
        raise LaunchError(
            "repo", "project.path must be a subdirectory of the workspace when repo.url is set"
        )
    # An empty BAND_SDK_HOME must not make the fence the current directory.
    sdk_home = Path(env.band_sdk_home or DEFAULT_SDK_HOME)
    fences = [(workspace, "the mounted workspace"), (sdk_home, "the SDK home")]
    runtime = config.runtime

    def outside(value: str, name: str) -> Path:
        return require_outside(Path(value), forbidden=fences, name=name)

    return ResolvedPaths(
        project=project,
        entrypoint=entrypoint,
        environment_path=outside(runtime.environment_path, "runtime.environmentPath"),
        state_path=outside(runtime.state_path, "runtime.statePath"),
        cache_path=outside(runtime.cache_path, "runtime.cachePath"),
        log_path=outside(runtime.log_path, "runtime.logPath"),
    )
