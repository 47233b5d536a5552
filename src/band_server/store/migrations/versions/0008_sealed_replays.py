"""sealed idempotency replays: keys stored as hashes, answers encrypted with the client's key

Records written before this held the client's key and the answer in the clear (an agent's new
API key among them). Each is converted in place: its key becomes ``key_id`` and its answer is
sealed with that same key, so a retry within the 24 hours still replays it. On SQLite the
freed plain bytes are zeroed (``secure_delete``) rather than left in free pages.
"""

import sqlalchemy as sa
from alembic import op

from band_server.services.idempotency.replay_seal import Seal, key_id

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    bind = op.get_bind()
    # Freed bytes are zeroed (Debian's SQLite does it by default; other builds may not).
    secure_delete = None
    if bind.dialect.name == "sqlite":
        secure_delete = int(bind.execute(sa.text("PRAGMA secure_delete")).scalar() or 0)
        op.execute("PRAGMA secure_delete = 1")
    rows = bind.execute(
        sa.text(
            "SELECT principal_id, key, method, path, body_hash, status_code, response_body "
            "FROM idempotency_keys"
        )
    ).all()
    convert = sa.text(
        "UPDATE idempotency_keys SET key = :new, response_body = :sealed "
        "WHERE principal_id = :principal AND key = :old"
    )
    for principal, old, method, path, body_hash, status, body in rows:
        seal = Seal.for_request(principal, old, method, path, body_hash)
        sealed = seal.seal(body) if status != 0 else ""
        new = key_id(principal, old)
        bind.execute(convert, {"new": new, "sealed": sealed, "principal": principal, "old": old})
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.alter_column("response_body", new_column_name="sealed_body")
    if secure_delete is not None:
        op.execute(f"PRAGMA secure_delete = {secure_delete}")


def downgrade() -> None:
    # A sealed answer cannot be opened without the client's key: the records are dropped
    # (they are 24-hour replay records; a retry after the downgrade does its work again).
    op.execute("DELETE FROM idempotency_keys")
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.alter_column("sealed_body", new_column_name="response_body")
