"""Compare our Phoenix client with phoenix-channels-python-client against the real platform.

Usage: python bench/socket_clients.py [PHOENIX_VENV_PYTHON] -- needs a venv where
``pip install phoenix-channels-python-client==0.3.1`` was run (default /tmp/phxbench).
Prints a table and writes bench/results/socket_clients.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _platform import free_port, run, seed, serve_platform

N = 50


def main() -> None:
    other = sys.argv[1] if len(sys.argv) > 1 else "/tmp/phxbench/bin/python"
    probe = str(Path(__file__).with_name("socket_probe.py"))
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        s = run(seed(data))
        port = free_port()
        server = serve_platform(data, port)
        try:
            url = f"ws://127.0.0.1:{port}/api/v1/socket/websocket"
            args = [url, s.agent_key, s.agent_id, s.room_id, str(N)]  # type: ignore[attr-defined]
            rows = []
            runs = (("ours", sys.executable), ("ours-marginal", sys.executable), ("phoenix", other))
            for client, python in runs:
                out = subprocess.run(
                    [python, probe, client, *args], check=True, capture_output=True, text=True
                ).stdout
                rows.append(json.loads(out.strip().splitlines()[-1]))
        finally:
            server.terminate()
            server.wait(10)
    keys = list(rows[0])
    print(" | ".join(keys))
    for row in rows:
        print(" | ".join(str(row[k]) for k in keys))
    target = Path(__file__).with_name("results")
    target.mkdir(exist_ok=True)
    (target / "socket_clients.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
