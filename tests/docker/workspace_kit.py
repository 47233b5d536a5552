"""A band-kit workspace on disk for the docker tests: band.yaml, a project, runtime paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def write_band_yaml(workspace: Path, runtime_root: Path, **sections: Any) -> Path:
    """``band.yaml`` with schema 1, runtime paths under ``runtime_root`` and ``sections``."""
    data: dict[str, Any] = {
        "schemaVersion": "1",
        "runtime": {
            "environmentPath": str(runtime_root / "venv"),
            "statePath": str(runtime_root / "state"),
            "cachePath": str(runtime_root / "cache"),
            "logPath": str(runtime_root / "logs"),
        },
        **sections,
    }
    path = workspace / "band.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def make_workspace(tmp_path: Path, **sections: Any) -> tuple[Path, Path]:
    """A workspace with a locked project at ``app/`` (``main.py``); (workspace, runtime root)."""
    workspace, runtime = tmp_path / "workspace", tmp_path / "sandbox"
    project = workspace / "app"
    project.mkdir(parents=True)
    runtime.mkdir()
    (project / "main.py").write_text("print('agent')\n", encoding="utf-8")
    (project / "pyproject.toml").write_text("[project]\nname = 'agent'\n", encoding="utf-8")
    (project / "uv.lock").write_text("version = 1\n", encoding="utf-8")
    sections.setdefault("agent", {"id": "agent-123", "entrypoint": "main.py"})
    sections.setdefault("project", {"path": "app"})
    write_band_yaml(workspace, runtime, **sections)
    return workspace, runtime
