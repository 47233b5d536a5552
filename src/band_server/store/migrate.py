"""Bring a database to the newest schema with Alembic (run on every start; a no-op when current)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


async def upgrade(engine: AsyncEngine) -> None:
    """Apply every pending migration on the given engine's database."""
    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    async with engine.begin() as conn:
        cfg.attributes["connection"] = conn

        def _upgrade(sync_conn: object) -> None:
            cfg.attributes["connection"] = sync_conn
            command.upgrade(cfg, "head")

        await conn.run_sync(_upgrade)
