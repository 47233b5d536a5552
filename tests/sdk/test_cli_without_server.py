"""``band bridge`` / ``band runtime`` work where the platform (the ``server`` extra) is absent;
the platform's commands then say which extra to install."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
sys.modules["band_server"] = None  # as if the server extra were not installed
from band.cli import main
code = main(sys.argv[1:])
sys.exit(code)
"""


def _band(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=60
    )


def test_bridge_and_runtime_help_without_the_server() -> None:
    for command in ("bridge", "runtime"):
        done = _band(command, "--help")
        assert done.returncode == 0, done.stderr
        assert f"usage: band {command}" in done.stdout


def test_server_commands_name_the_missing_extra() -> None:
    done = _band("serve")
    assert done.returncode == 1
    assert "pip install 'openband[server]'" in done.stderr
