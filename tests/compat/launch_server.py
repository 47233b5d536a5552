"""Start our platform for the compat tests: `python launch_server.py DATA_DIR PORT`.

Run with the project's venv. It serves `band_server.app.create_app` on 127.0.0.1:PORT with a
fresh or existing SQLite data folder, exactly as an operator would, but without the CLI.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

from band_server.app import create_app
from band_server.config import Settings
from band_server.server_stack import uvicorn_options


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: launch_server.py DATA_DIR PORT")
    data_dir, port = Path(argv[0]), int(argv[1])
    settings = Settings(data_dir=data_dir, database_url=None, redis_url=None, port=port)
    uvicorn.run(
        create_app(settings),
        host="127.0.0.1",
        port=port,
        log_level="info",
        lifespan="on",
        **uvicorn_options(),  # the stack `band serve` runs
    )


if __name__ == "__main__":
    main(sys.argv[1:])
