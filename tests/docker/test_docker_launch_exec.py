"""``python -m band.docker.launcher`` end to end in a child process: uv sync --locked with the
sandbox's paths (a recording stand-in for the image's uv), then the entrypoint exec'd on the
synced interpreter with the agent's identity, endpoints and key in its environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from workspace_kit import make_workspace

FAKE_UV = """#!/bin/sh
# Records how it was called, then builds the "venv": an interpreter that records its launch.
printf '%s\\n' "$*" > "$RECORD_DIR/uv-args"
env | sort > "$RECORD_DIR/uv-env"
pwd > "$RECORD_DIR/uv-cwd"
[ -n "$FAIL_SYNC" ] && { echo "error: the lockfile needs to be updated" >&2; exit 2; }
mkdir -p "$UV_PROJECT_ENVIRONMENT/bin"
cat > "$UV_PROJECT_ENVIRONMENT/bin/python" <<'PY'
#!/bin/sh
printf '%s\\n' "$@" > "$RECORD_DIR/child-args"
env | sort > "$RECORD_DIR/child-env"
pwd > "$RECORD_DIR/child-cwd"
PY
chmod +x "$UV_PROJECT_ENVIRONMENT/bin/python"
"""

# The launcher insists on uid 1000; the test process may be another user.
LAUNCH = "import band.docker.launcher.run as r; r.current_uid = lambda: r.AGENT_UID; r.main()"


def launch(tmp_path: Path, **extra_env: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    workspace, _ = make_workspace(tmp_path)
    records = tmp_path / "records"
    records.mkdir()
    uv = tmp_path / "uv"
    uv.write_text(FAKE_UV)
    uv.chmod(0o755)
    env = {
        "PATH": os.environ["PATH"],
        "WORKSPACE_DIR": str(workspace),
        "BAND_SDK_UV": str(uv),
        "BAND_API_KEY": "bk_live_key",
        "BAND_REST_URL": "https://band.example",
        "BAND_WS_URL": "wss://band.example/socket",
        "RECORD_DIR": str(records),
        **extra_env,
    }
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH], env=env, capture_output=True, text=True, timeout=60
    )
    return done, records


def read_env(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def test_the_launcher_syncs_the_lock_and_execs_the_entrypoint(tmp_path: Path) -> None:
    done, records = launch(tmp_path)
    assert done.returncode == 0, done.stderr
    assert (records / "uv-args").read_text().strip() == "sync --locked"
    uv_env = read_env(records / "uv-env")
    assert uv_env["UV_PROJECT_ENVIRONMENT"] == str((tmp_path / "sandbox" / "venv").resolve())
    assert uv_env["UV_CACHE_DIR"] == str((tmp_path / "sandbox" / "cache").resolve())
    assert uv_env["UV_PYTHON_DOWNLOADS"] == "never"
    project = (tmp_path / "workspace" / "app").resolve()
    assert (records / "uv-cwd").read_text().strip() == str(project)
    assert (records / "child-args").read_text().splitlines() == [str(project / "main.py")]
    assert (records / "child-cwd").read_text().strip() == str(project)
    child = read_env(records / "child-env")
    assert {k: child[k] for k in ("BAND_AGENT_ID", "BAND_API_KEY", "BAND_REST_URL", "HOME")} == {
        "BAND_AGENT_ID": "agent-123",
        "BAND_API_KEY": "bk_live_key",
        "BAND_REST_URL": "https://band.example",
        "HOME": "/home/agent",
    }
    log = (tmp_path / "sandbox" / "logs" / "launcher.log").read_text()
    assert "launching" in log
    assert "bk_live_key" not in log + done.stderr


def test_a_stale_lock_fails_the_launch_with_uvs_reason(tmp_path: Path) -> None:
    done, records = launch(tmp_path, FAIL_SYNC="1")
    assert done.returncode == 1
    assert "[sync] locked dependency synchronization failed" in done.stderr
    assert "the lockfile needs to be updated" in done.stderr
    assert not (records / "child-args").exists()
    assert json.dumps(done.stderr).count("bk_live_key") == 0


def test_the_module_entry_refuses_another_user(tmp_path: Path) -> None:
    if os.getuid() == 1000:
        return  # the image's agent user: the identity check passes here
    workspace, _ = make_workspace(tmp_path)
    env = {"PATH": os.environ["PATH"], "WORKSPACE_DIR": str(workspace), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "band.docker.launcher"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"Launch failed: [identity] launcher must run as uid 1000, got uid {os.getuid()}" in (
        done.stderr
    )
