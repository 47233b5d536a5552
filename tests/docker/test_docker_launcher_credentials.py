"""band.docker.launcher.credentials: the opt-in workspace secrets file is used only after
every guard passes (no symlink, a file, mode 600, gitignored and untracked, documented names),
the environment wins over it, and proxy-managed custody admits only the sentinel key."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from workspace_kit import make_workspace

from band.docker.launcher import (
    LauncherEnv,
    LaunchError,
    load_workspace_config,
    resolve_credentials,
)

OPT_IN = {
    "source": "workspace-env-file",
    "path": ".band.env",
    "acknowledgePlaintextInSandbox": True,
}


def git(workspace: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(workspace), *args], check=True, capture_output=True)


def secrets_workspace(
    tmp_path: Path, text: str, *, credentials: dict[str, object] = OPT_IN
) -> Path:
    workspace, _ = make_workspace(tmp_path, credentials=credentials)
    secrets = workspace / ".band.env"
    secrets.write_text(text, encoding="utf-8")
    secrets.chmod(0o600)
    (workspace / ".gitignore").write_text(".band.env\n", encoding="utf-8")
    git(workspace, "init", "-q")
    return workspace


def resolve(workspace: Path, **env: str) -> dict[str, str]:
    config = load_workspace_config(workspace / "band.yaml")
    return resolve_credentials(config, LauncherEnv(workspace_dir=str(workspace), **env), workspace)


def test_the_file_fills_what_the_environment_leaves_empty(tmp_path: Path) -> None:
    workspace = secrets_workspace(tmp_path, "BAND_API_KEY=bk_file\nOPENAI_API_KEY=sk_file\n")
    assert resolve(workspace) == {"BAND_API_KEY": "bk_file", "OPENAI_API_KEY": "sk_file"}
    assert resolve(workspace, openai_api_key="sk_env") == {
        "BAND_API_KEY": "bk_file",
        "OPENAI_API_KEY": "sk_env",
    }


def test_outside_a_repository_the_ignore_rule_must_already_exist(tmp_path: Path) -> None:
    workspace = secrets_workspace(tmp_path, "BAND_API_KEY=bk\n")
    subprocess.run(["rm", "-rf", str(workspace / ".git")], check=True)
    assert resolve(workspace) == {"BAND_API_KEY": "bk"}
    (workspace / ".gitignore").unlink()
    with pytest.raises(LaunchError, match="must be gitignored"):
        resolve(workspace)


@pytest.mark.parametrize(
    ("spoil", "fragment"),
    [
        (lambda w: (w / ".band.env").chmod(0o644), "must be owner-only (e.g. 600), got 644"),
        (lambda w: (w / ".gitignore").write_text(""), "must be gitignored"),
        (
            lambda w: (w / ".band.env").write_text("SHELL_HOOK=x\n"),
            "undocumented names: SHELL_HOOK",
        ),
        (lambda w: (w / ".band.env").unlink(), "credentials file not found"),
    ],
)
def test_a_guard_that_fails_stops_the_launch(tmp_path: Path, spoil: object, fragment: str) -> None:
    workspace = secrets_workspace(tmp_path, "BAND_API_KEY=bk_secret_value\n")
    spoil(workspace)  # type: ignore[operator]
    with pytest.raises(LaunchError) as info:
        resolve(workspace)
    assert info.value.phase == "credentials"
    assert fragment in str(info.value)
    assert "bk_secret_value" not in str(info.value)


def test_a_tracked_secrets_file_is_refused(tmp_path: Path) -> None:
    workspace = secrets_workspace(tmp_path, "BAND_API_KEY=bk\n")
    git(workspace, "add", "-f", ".band.env")
    with pytest.raises(LaunchError, match="tracked by Git"):
        resolve(workspace)


def test_a_symlinked_secrets_file_is_refused(tmp_path: Path) -> None:
    workspace = secrets_workspace(tmp_path, "")
    real = workspace / "real.env"
    real.write_text("BAND_API_KEY=bk\n")
    real.chmod(0o600)
    (workspace / ".band.env").unlink()
    os.symlink(real, workspace / ".band.env")
    with pytest.raises(LaunchError, match="must not traverse a symlink"):
        resolve(workspace)


def test_plaintext_custody_needs_the_acknowledgement(tmp_path: Path) -> None:
    workspace = secrets_workspace(
        tmp_path,
        "BAND_API_KEY=bk\n",
        credentials={**OPT_IN, "acknowledgePlaintextInSandbox": False},
    )
    with pytest.raises(LaunchError, match="acknowledgePlaintextInSandbox: true is required"):
        resolve(workspace)


def test_proxy_managed_custody_admits_only_the_sentinel(tmp_path: Path) -> None:
    workspace, _ = make_workspace(tmp_path, credentials={"source": "proxy-managed"})
    assert resolve(workspace, band_api_key="proxy-managed") == {"BAND_API_KEY": "proxy-managed"}
    with pytest.raises(LaunchError) as info:
        resolve(workspace, band_api_key="bk_real_key")
    assert "sentinel" in str(info.value)
    assert "bk_real_key" not in str(info.value)
