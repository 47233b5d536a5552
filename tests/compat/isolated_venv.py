"""Isolated, cached virtual environments for official clients that test our server as peers.

An environment is built once with `python3 -m venv` + `pip install <requirements>` from PyPI
and reused while its fingerprint (the requirements, the interpreter's version and a tag the
caller chooses) still matches the one written at build time. Builds are serialised across
processes with a lock file, so two test runs never build the same venv at once. When pip
fails because the registry cannot be reached, `Unavailable` is raised (the suite skips with
that reason); any other failure is an error.

The official clients never enter the project's own environment: each lives in a git-ignored
folder under `tests/` and is run as a child process.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FINGERPRINT_FILE = ".band-fingerprint"

# pip output that means "the registry could not be reached", as opposed to a real breakage.
OFFLINE_MARKERS = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "NewConnectionError",
    "Max retries exceeded",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ConnectTimeoutError",
    "ReadTimeoutError",
)


class Unavailable(Exception):
    """The venv could not be built for a reason outside the project (no registry)."""


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a child: no leaked venv, no project path, no stray BAND_* config."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}
        and not k.startswith("BAND_")
        and not k.startswith("PYTEST_")
    }
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def installed_version(venv: Path, distribution: str) -> str | None:
    """The version of `distribution` inside the venv, or None (no venv, not installed)."""
    py = venv_python(venv)
    if not py.exists():
        return None
    probe = subprocess.run(
        [str(py), "-c", f"import importlib.metadata as m; print(m.version({distribution!r}))"],
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_env(),
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


@dataclass(frozen=True)
class VenvSpec:
    """What one isolated venv holds: `requirements`, checked by `distribution == version`."""

    path: Path
    requirements: tuple[str, ...]
    distribution: str
    version: str
    tag: str = ""

    def fingerprint(self) -> str:
        base = shutil.which("python3") or sys.executable
        facts = {
            "requirements": list(self.requirements),
            "python": base,
            "python_version": list(sys.version_info[:3]),
            "tag": self.tag,
        }
        return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()

    def is_current(self) -> bool:
        stamp = self.path / FINGERPRINT_FILE
        if not stamp.exists() or stamp.read_text().strip() != self.fingerprint():
            return False
        return installed_version(self.path, self.distribution) == self.version


def ensure_venv(spec: VenvSpec, progress: Callable[[str], None]) -> Path:
    """The venv's interpreter, (re)building the venv first when its fingerprint is stale."""
    key = hashlib.sha256(str(spec.path.resolve()).encode()).hexdigest()[:16]
    lock_path = Path(tempfile.gettempdir()) / f"band-isolated-venv-{key}.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _ensure_locked(spec, progress)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _ensure_locked(spec: VenvSpec, progress: Callable[[str], None]) -> Path:
    wanted = " ".join(spec.requirements)
    if spec.is_current():
        progress(f"venv {spec.path.name}: reusing ({wanted} already installed)")
        return venv_python(spec.path)
    progress(f"venv {spec.path.name}: building (first use or stale fingerprint)")
    base = shutil.which("python3") or sys.executable
    started = time.monotonic()
    subprocess.run(
        [base, "-m", "venv", "--clear", str(spec.path)], check=True, timeout=300, env=clean_env()
    )
    progress(f"venv {spec.path.name}: pip install {wanted} (from PyPI) ...")
    pip = subprocess.run(
        [
            str(venv_python(spec.path)),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            *spec.requirements,
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=clean_env(),
    )
    if pip.returncode != 0:
        output = pip.stdout + pip.stderr
        tail = "\n".join(output.strip().splitlines()[-15:])
        if any(marker in output for marker in OFFLINE_MARKERS):
            raise Unavailable(f"cannot install {wanted} (PyPI unreachable?):\n{tail}")
        raise RuntimeError(f"pip install {wanted} failed:\n{tail}")
    for line in pip.stdout.splitlines():
        if line.startswith("Successfully installed"):
            progress(f"venv {spec.path.name}: {line[:300]}")
    found = installed_version(spec.path, spec.distribution)
    if found != spec.version:
        raise RuntimeError(f"{spec.path} has {spec.distribution} {found!r}, not {spec.version}")
    (spec.path / FINGERPRINT_FILE).write_text(spec.fingerprint() + "\n")
    progress(f"venv {spec.path.name}: ready in {time.monotonic() - started:.1f}s")
    return venv_python(spec.path)
