"""band.docker.launcher: band.yaml read strictly, endpoints and identity resolved, every path
fenced, the child's environment built; each failure a LaunchError naming its phase."""

from __future__ import annotations

from pathlib import Path

import pytest
from workspace_kit import make_workspace, write_band_yaml

from band.docker.launcher import (
    DEFAULT_REST_URL,
    DEFAULT_WS_URL,
    LauncherEnv,
    LaunchError,
    RepoSection,
    build_child_environment,
    load_workspace_config,
    resolve_launch,
)
from band.docker.launcher import run as launcher_run
from band.docker.launcher.config import resolve_agent_id, resolve_endpoints
from band.docker.launcher.paths import resolve_paths


@pytest.fixture(autouse=True)
def as_agent_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launcher_run, "current_uid", lambda: launcher_run.AGENT_UID)


def env_for(workspace: Path, **values: str) -> LauncherEnv:
    return LauncherEnv(workspace_dir=str(workspace), band_sdk_uv="/opt/band/bin/uv", **values)


def test_a_provisioned_workspace_resolves_to_a_complete_launch(tmp_path: Path) -> None:
    workspace, runtime = make_workspace(tmp_path)
    launch = resolve_launch(env_for(workspace, band_api_key="bk_live"))
    assert launch.project == (workspace / "app").resolve()
    assert launch.entrypoint == (workspace / "app" / "main.py").resolve()
    assert launch.state_path == (runtime / "state").resolve()
    assert (launch.agent_id, launch.rest_url, launch.ws_url) == (
        "agent-123",
        DEFAULT_REST_URL,
        DEFAULT_WS_URL,
    )
    assert launch.credentials == {"BAND_API_KEY": "bk_live"}
    child = build_child_environment(launch)
    assert child["BAND_AGENT_ID"] == "agent-123"
    assert child["BAND_API_KEY"] == "bk_live"
    assert child["BAND_WS_URL"] == DEFAULT_WS_URL
    assert child["HOME"] == "/home/agent"


def test_the_environment_overrides_band_yaml(tmp_path: Path) -> None:
    workspace, _ = make_workspace(
        tmp_path, band={"restUrl": "https://yaml.example", "wsUrl": "wss://yaml.example/ws"}
    )
    config = load_workspace_config(workspace / "band.yaml")
    assert resolve_endpoints(config, env_for(workspace)) == (
        "https://yaml.example",
        "wss://yaml.example/ws",
    )
    env = env_for(workspace, band_rest_url="https://env.example", band_agent_id="agent-env")
    assert resolve_endpoints(config, env)[0] == "https://env.example"
    assert resolve_agent_id(config, env) == "agent-env"


@pytest.mark.parametrize(
    ("sections", "phase", "fragment"),
    [
        ({"agent": {"id": "a", "entrypiont": "x.py"}}, "config", "agent.entrypiont"),
        ({"agent": {"id": "replace-with-agent-id"}}, "config", "band-kit provision"),
        ({"agent": {"id": ""}}, "config", "agent id missing"),
        ({"band": {"restUrl": "http://plain.example"}}, "config", "must be a https:// URL"),
        ({"project": {"path": "../outside"}}, "paths", "escapes its permitted root"),
        ({"agent": {"id": "a", "entrypoint": "missing.py"}}, "paths", "entrypoint is not a file"),
    ],
)
def test_a_bad_workspace_fails_in_its_phase(
    tmp_path: Path, sections: dict[str, object], phase: str, fragment: str
) -> None:
    workspace, _ = make_workspace(tmp_path, **sections)
    with pytest.raises(LaunchError) as info:
        resolve_launch(env_for(workspace, band_api_key="bk"))
    assert info.value.phase == phase
    assert fragment in str(info.value)
    assert str(info.value).startswith(f"[{phase}] ")


def test_runtime_paths_must_stay_out_of_the_workspace_and_sdk_home(tmp_path: Path) -> None:
    workspace, _ = make_workspace(tmp_path)
    write_band_yaml(workspace, workspace / "inside", agent={"id": "a"}, project={"path": "app"})
    config = load_workspace_config(workspace / "band.yaml")
    with pytest.raises(
        LaunchError, match=r"runtime\.environmentPath must live outside the mounted"
    ):
        resolve_paths(config, env_for(workspace), workspace)
    write_band_yaml(
        tmp_path / "workspace", tmp_path / "sdk", agent={"id": "a"}, project={"path": "app"}
    )
    config = load_workspace_config(workspace / "band.yaml")
    with pytest.raises(LaunchError, match="must live outside the SDK home"):
        resolve_paths(config, env_for(workspace, band_sdk_home=str(tmp_path / "sdk")), workspace)


def test_identity_workspace_and_key_are_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, _ = make_workspace(tmp_path)
    with pytest.raises(LaunchError, match=r"\[credentials\] BAND_API_KEY missing"):
        resolve_launch(env_for(workspace))
    with pytest.raises(LaunchError, match="WORKSPACE_DIR is not set"):
        resolve_launch(LauncherEnv(band_api_key="bk"))
    monkeypatch.setattr(launcher_run, "current_uid", lambda: 0)
    with pytest.raises(LaunchError, match=r"\[identity\] launcher must run as uid 1000, got uid 0"):
        resolve_launch(env_for(workspace, band_api_key="bk"))


@pytest.mark.parametrize(
    ("url", "accepted"),
    [
        ("git@github.com:band/agent.git", True),
        ("ssh://git@github.com/band/agent.git", True),
        ("https://github.com/band/agent.git", True),
        ("https://token@github.com/band/agent.git", False),
        ("ssh://git:secret@github.com/band/agent.git", False),
        ("git@github.com", False),
        ("https://github.com/", False),
        ("http://github.com/band/agent.git", False),
        ("   ", False),
    ],
)
def test_a_repository_url_is_a_complete_remote_without_credentials(
    url: str, accepted: bool
) -> None:
    if accepted:
        assert RepoSection(url=url).url == url
    else:
        with pytest.raises(ValueError):
            RepoSection(url=url)


def test_a_cloned_project_must_be_a_subdirectory(tmp_path: Path) -> None:
    workspace, _ = make_workspace(
        tmp_path, project={"path": "."}, repo={"url": "https://github.com/band/agent.git"}
    )
    with pytest.raises(LaunchError, match=r"\[repo\] project.path must be a subdirectory"):
        resolve_launch(env_for(workspace, band_api_key="bk"))
