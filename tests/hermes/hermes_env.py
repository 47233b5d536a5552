"""The Hermes environment: ``hermes-agent`` from PyPI, the ``hermes-band`` plugin (``--no-deps``:
its metadata asks for the official SDK) and our SDK, in ``tests/hermes/.venv``.

Built once and reused while its fingerprint (the pinned versions and this file) is unchanged;
building is serialised across processes with a lock file.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VENV = HERE / ".venv"
PINS = ("hermes-agent==0.19.0", "hermes-band==0.1.0")
_OFFLINE = (
    "No matching distribution found",
    "Could not find a version",
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "Max retries exceeded",
)


class HermesUnavailable(Exception):
    """The registry could not be reached while building the environment."""


def _fingerprint() -> str:
    digest = hashlib.sha256("|".join(PINS).encode())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:16]


def python() -> Path:
    return VENV / "bin" / "python"


def _pip(args: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    done = subprocess.run(
        [str(python()), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=1500,
        env=env,
    )
    if done.returncode != 0:
        output = done.stdout + done.stderr
        tail = "\n".join(output.strip().splitlines()[-12:])
        if any(marker in output for marker in _OFFLINE):
            raise HermesUnavailable(tail)
        raise RuntimeError(f"pip install {' '.join(args)} failed:\n{tail}")


def ensure(progress: Callable[[str], None]) -> Path:
    """The Hermes interpreter, building the environment on first use."""
    stamp = VENV / ".fingerprint"
    lock_path = (
        Path(tempfile.gettempdir())
        / f"band-hermes-{hashlib.sha1(str(VENV).encode()).hexdigest()[:12]}.lock"
    )
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and stamp.read_text() == _fingerprint() and python().exists():
            progress(f"hermes venv: reusing {VENV}")
            return python()
        progress(f"hermes venv: building {VENV} ({', '.join(PINS)}) ...")
        subprocess.run(
            [sys.executable, "-m", "venv", "--clear", str(VENV)], check=True, timeout=300
        )
        _pip([PINS[0]])
        _pip(["--no-deps", PINS[1]])
        _pip(["-e", str(ROOT)])
        stamp.write_text(_fingerprint())
        progress("hermes venv: ready")
        return python()
