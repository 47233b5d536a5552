"""Bring a database to the newest schema with Alembic (run on every start; a no-op when current)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).parent / "migrations"
MIGRATION_LOCK = 0x42414E44  # "BAND": the advisory lock key that serialises migrations


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


async def upgrade(engine: AsyncEngine) -> None:
    """Apply every pending migration on the given engine's database."""
    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Nodes starting together take turns; the later ones find the schema current.
            await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        cfg.attributes["connection"] = conn

        def _upgrade(sync_conn: object) -> None:
            cfg.attributes["connection"] = sync_conn
            command.upgrade(cfg, "head")

        await conn.run_sync(_upgrade)


async def migrate(engine: AsyncEngine, direction: str, revision: str) -> None:
    """Run ``alembic upgrade|downgrade <revision>`` on the engine's database (for tests and
    operators stepping through revisions; ``upgrade`` is what a node runs at start)."""
    if direction not in ("upgrade", "downgrade"):
        raise ValueError(f"direction must be upgrade or downgrade, not {direction!r}")
    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    async with engine.begin() as conn:

        def _run(sync_conn: object) -> None:
            cfg.attributes["connection"] = sync_conn
            getattr(command, direction)(cfg, revision)

        await conn.run_sync(_run)
