"""Every migration on a real PostgreSQL: from scratch to the head, the schema the models
describe, all the way down and up again, and 0003's data move (``is_admin`` becomes a role,
people without an email get their local mailbox, emails become unique)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from band_server.store.migrate import alembic_config, migrate
from band_server.store.models import Base


@pytest.fixture
async def engine(pg_url: str) -> AsyncIterator[AsyncEngine]:
    made = create_async_engine(pg_url)
    try:
        yield made
    finally:
        await made.dispose()


def heads() -> list[str]:
    return list(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


async def schema_drift(engine: AsyncEngine) -> list[Any]:
    async with engine.connect() as conn:

        def diff(sync_conn: Any) -> list[Any]:
            return list(compare_metadata(MigrationContext.configure(sync_conn), Base.metadata))

        return await conn.run_sync(diff)


async def test_one_head_and_the_migrated_schema_is_the_models(engine: AsyncEngine) -> None:
    assert len(heads()) == 1, f"two migration heads: {heads()}"
    await migrate(engine, "upgrade", "head")
    assert await schema_drift(engine) == []
    async with engine.connect() as conn:
        version = await conn.scalar(text("SELECT version_num FROM alembic_version"))
    assert version == heads()[0]


async def test_every_migration_goes_down_and_up_again(engine: AsyncEngine) -> None:
    await migrate(engine, "upgrade", "head")
    await migrate(engine, "downgrade", "base")
    async with engine.connect() as conn:
        tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    assert tables <= {"alembic_version"}, tables
    await migrate(engine, "upgrade", "head")
    assert await schema_drift(engine) == []


async def test_0003_moves_admins_to_roles_and_makes_emails_unique(engine: AsyncEngine) -> None:
    await migrate(engine, "upgrade", "0002")
    async with engine.begin() as conn:
        for handle, email, admin in (
            ("ada", "ada@example.org", True),
            ("bob", None, False),
            ("cy", "", False),
        ):
            await conn.execute(
                text(
                    "INSERT INTO users (id, name, handle, email, is_admin, created_at, updated_at)"
                    " VALUES (:id, :name, :handle, :email, :admin, now(), now())"
                ),
                {
                    "id": f"id-{handle}",
                    "name": handle,
                    "handle": handle,
                    "email": email,
                    "admin": admin,
                },
            )
    await migrate(engine, "upgrade", "0003")
    async with engine.connect() as conn:
        rows = await conn.execute(text("SELECT handle, email, role FROM users ORDER BY handle"))
        assert [tuple(r) for r in rows] == [
            ("ada", "ada@example.org", "admin"),
            ("bob", "bob@localhost", "user"),
            ("cy", "cy@localhost", "user"),
        ]
        columns = await conn.run_sync(
            lambda c: {col["name"] for col in inspect(c).get_columns("users")}
        )
    assert "is_admin" not in columns and {"role", "first_name", "last_name"} <= columns
    with pytest.raises(IntegrityError):
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO users (id, name, handle, email, role, created_at, updated_at)"
                    " VALUES ('id-dup', 'Dup', 'dup', 'ada@example.org', 'user', now(), now())"
                )
            )
    # The rest of the chain applies on top of the moved data.
    await migrate(engine, "upgrade", "head")
    async with engine.connect() as conn:
        assert await conn.scalar(text("SELECT count(*) FROM users")) == 3
