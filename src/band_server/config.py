"""Server settings, read from the environment and the command line."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def default_data_dir() -> Path:
    return Path(os.environ.get("BAND_DATA_DIR", "./band-data")).resolve()


@dataclass(frozen=True)
class Settings:
    """Everything the platform needs to start. Defaults give a one-laptop SQLite node."""

    data_dir: Path = field(default_factory=default_data_dir)
    database_url: str | None = field(default_factory=lambda: os.environ.get("BAND_DATABASE_URL"))
    redis_url: str | None = field(default_factory=lambda: os.environ.get("BAND_REDIS_URL"))
    host: str = "127.0.0.1"
    port: int = 8080
    heartbeat_timeout: float = 60.0
    agent_loop_limit: int = 50

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{self.data_dir / 'band.db'}"

    @property
    def public_url(self) -> str:
        return f"http://{self.host}:{self.port}"
