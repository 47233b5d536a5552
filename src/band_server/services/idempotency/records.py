"""Idempotency records: claim a key with the work, keep the answer after it (Stripe semantics).

How it works: docs/internals/server.md, "Idempotency records".

The claim commits or rolls back with the request's first unit of work.
"""

from __future__ import annotations

import json
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import utcnow
from band_server.errors import ApiError
from band_server.services.idempotency.replay_seal import Seal, key_id, plain
from band_server.store import direct
from band_server.store.db import Database
from band_server.store.models import Base, IdempotencyRecord

TTL = timedelta(hours=24)
SWEEP_EVERY = timedelta(minutes=10)
"""A claim also deletes the caller's expired keys, at most this often per caller and node: the
sweep reads all of the caller's keys of the last day (a busy agent has tens of thousands), so
sweeping on a share of its posts cost each post in proportion to its day's keys."""
# A claim older than this belongs to a request that died mid-way; a retry may take it over.
ABANDONED = timedelta(minutes=5)
IN_FLIGHT = 0
MAX_PATH = 500


@dataclass(frozen=True)
class Fingerprint:
    """What a key is bound to: the caller, the key, the request line and the body's hash.

    ``key`` is what the record stores: the hash of the client's key (:func:`fingerprint`).
    """

    principal_id: str
    key: str
    method: str
    path: str
    body_hash: str
    seal: Seal = field(compare=False)


def fingerprint(
    principal_id: str, client_key: str, method: str, path: str, body_hash: str
) -> Fingerprint:
    """The fingerprint of a keyed request; the client's key itself goes no further."""
    seal = Seal.for_request(principal_id, client_key, method, path[:MAX_PATH], body_hash)
    return Fingerprint(
        principal_id, key_id(principal_id, client_key), method, path, body_hash, seal
    )


@dataclass(frozen=True)
class Claimed:
    """The key is new (or expired, or abandoned): do the work.

    ``fresh``: no record of the key was found at all, so the claim is a plain insert (a
    concurrent first request with the same key makes it fail on the primary key).
    """

    fresh: bool = False


@dataclass(frozen=True)
class Replay:
    """The key was used for this same request: answer what was answered then."""

    status_code: int
    body: str


@dataclass(frozen=True)
class Reused:
    """The key was used for a different request."""


@dataclass(frozen=True)
class InFlight:
    """The same request is being handled right now."""


Outcome = Claimed | Replay | Reused | InFlight


_RECORDS = Base.metadata.tables[IdempotencyRecord.__tablename__]
_INSERT = _RECORDS.insert()
_LOOKUP = select(
    _RECORDS.c.method,
    _RECORDS.c.path,
    _RECORDS.c.body_hash,
    _RECORDS.c.status_code,
    _RECORDS.c.sealed_body,
    _RECORDS.c.created_at,
).where(_RECORDS.c.principal_id == bindparam("principal"), _RECORDS.c.key == bindparam("key_id"))
_COMPLETE = (
    update(_RECORDS)
    .where(
        _RECORDS.c.principal_id == bindparam("principal"),
        _RECORDS.c.key == bindparam("key_id"),
        _RECORDS.c.status_code == IN_FLIGHT,
    )
    .values(status_code=bindparam("answer_status"), sealed_body=bindparam("sealed"))
)


def _replay(fp: Fingerprint, status_code: int, sealed_body: str) -> Replay | Reused:
    """The kept answer, opened with the client's key; one that does not open was not kept for
    this key and request (a hash collision, or a tampered row): refused, never redone."""
    answer = fp.seal.open(sealed_body)
    return Reused() if answer is None else Replay(status_code, answer)


def aware(dt: datetime) -> datetime:
    # SQLite hands timestamps back without a zone; they were written in UTC.
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


async def claim(session: AsyncSession, fp: Fingerprint) -> Outcome:
    """Decide what to do with a keyed request; on :class:`Claimed` the claim row is written.

    Two first requests racing on the same key make the loser's insert raise
    ``IntegrityError`` (the primary key); the caller treats that as :class:`InFlight`.
    """
    now = utcnow()
    row = await session.get(IdempotencyRecord, (fp.principal_id, fp.key))
    if row is not None and aware(row.created_at) <= now - TTL:
        await session.delete(row)
        await session.flush()
        row = None
    path = fp.path[:MAX_PATH]
    if row is None:
        await _insert(session, fp, now, IN_FLIGHT, "")
        return Claimed()
    if (row.method, row.path, row.body_hash) != (fp.method, path, fp.body_hash):
        return Reused()
    if row.status_code != IN_FLIGHT:
        return _replay(fp, row.status_code, row.sealed_body)
    if aware(row.created_at) > now - ABANDONED:
        return InFlight()
    row.created_at = now
    return Claimed()


@dataclass(frozen=True)
class Answer:
    """A 2xx answer to keep: sealed, unless its route declared it free of secrets."""

    status_code: int
    body: str
    secret_free: bool = False

    def stored(self, fp: Fingerprint) -> str:
        return plain(self.body) if self.secret_free else fp.seal.seal(self.body)


async def record(
    session: AsyncSession, fp: Fingerprint, answer: Answer | None, *, fresh: bool
) -> Outcome:
    """Write the key's record in the request's unit of work: the claim, and the answer if the
    unit kept one. ``fresh``: no record of the key was seen, so this is one insert, which
    raises ``IntegrityError`` if the key is taken after all (a concurrent request, or a
    record nobody read first); otherwise :func:`claim` decides, then :func:`complete`."""
    if not fresh:
        outcome = await claim(session, fp)
        if isinstance(outcome, Claimed) and answer is not None:
            await complete(session, fp, answer)
        return outcome
    status_code, sealed = IN_FLIGHT, ""
    if answer is not None:
        status_code, sealed = answer.status_code, answer.stored(fp)
    await _insert(session, fp, utcnow(), status_code, sealed)
    return Claimed(fresh=True)


async def _insert(
    session: AsyncSession, fp: Fingerprint, now: datetime, status_code: int, sealed: str
) -> None:
    """A key's first record (the caller's expired keys swept first when due): in flight, or
    with its kept answer."""
    if _sweep_due(fp.principal_id, now):
        await _sweep(session, fp, now)
    await direct.execute(
        session,
        _INSERT,
        {
            "principal_id": fp.principal_id,
            "key": fp.key,
            "method": fp.method,
            "path": fp.path[:MAX_PATH],
            "body_hash": fp.body_hash,
            "status_code": status_code,
            "sealed_body": sealed,
            "created_at": now,
        },
    )


_last_sweep: dict[str, datetime] = {}


def _sweep_due(principal_id: str, now: datetime) -> bool:
    """True at a caller's first claim on this node, then once per :data:`SWEEP_EVERY`."""
    last = _last_sweep.get(principal_id)
    if last is not None and now - last < SWEEP_EVERY:
        return False
    _last_sweep[principal_id] = now
    return True


async def _sweep(session: AsyncSession, fp: Fingerprint, now: datetime) -> None:
    await session.execute(
        delete(IdempotencyRecord).where(
            IdempotencyRecord.principal_id == fp.principal_id,
            IdempotencyRecord.created_at <= now - TTL,
        )
    )


async def complete(session: AsyncSession, fp: Fingerprint, answer: Answer) -> None:
    """Keep the answer of a claimed request, to be replayed for 24 hours."""
    await direct.execute(
        session,
        _COMPLETE,
        {
            "principal": fp.principal_id,
            "key_id": fp.key,
            "answer_status": answer.status_code,
            "sealed": answer.stored(fp),
        },
    )


async def release(session: AsyncSession, fp: Fingerprint) -> None:
    """Forget a claim whose request did not succeed, so the key may be used again."""
    await session.execute(
        delete(IdempotencyRecord).where(
            IdempotencyRecord.principal_id == fp.principal_id,
            IdempotencyRecord.key == fp.key,
            IdempotencyRecord.status_code == IN_FLIGHT,
        )
    )


# -- the claim taken inside the request's own unit of work ---------------------------------


@dataclass
class PendingClaim:
    """A keyed request's claim, to be written by its first unit of work."""

    fingerprint: Fingerprint
    fresh: bool = False  # no record of the key was seen (or none was looked for)
    claimed: bool = False  # the unit that wrote the claim has committed
    kept: bool = False  # ... and it kept the answer too (``UnitOfWork.keep_answer``)
    taken: bool = False  # the fresh insert found the key taken; the unit was rolled back
    on_row: bool = False  # the key goes on the message the unit posts (``row_keys``)


_pending: ContextVar[PendingClaim | None] = ContextVar("band_idempotency_claim", default=None)


def open_claim(
    fp: Fingerprint, *, fresh: bool = False, on_row: bool = False
) -> tuple[PendingClaim, Token[PendingClaim | None]]:
    """Until :func:`close_claim`, the request's first unit of work claims ``fp`` (on the
    message it posts when ``on_row``; a unit that posts none writes a record)."""
    pending = PendingClaim(fp, fresh=fresh, on_row=on_row)
    return pending, _pending.set(pending)


def close_claim(token: Token[PendingClaim | None]) -> None:
    _pending.reset(token)


def pending_claim() -> PendingClaim | None:
    """The claim this request still has to write, if any."""
    pending = _pending.get()
    return pending if pending is not None and not pending.claimed else None


class ClaimRefused(ApiError):
    """The key turned out to be taken once inside the unit of work (a concurrent request)."""


def refusal(outcome: Outcome) -> ClaimRefused:
    if isinstance(outcome, Reused):
        return ClaimRefused(
            "This Idempotency-Key was already used for a different request",
            code="idempotency_key_reused",
            status_code=422,
        )
    return ClaimRefused(
        "A request with this Idempotency-Key is still being processed",
        code="idempotency_key_in_use",
        status_code=409,
    )


async def lookup(db: Database, fp: Fingerprint) -> Outcome:
    """What :func:`claim` would decide, without writing: ``Claimed`` means go ahead."""
    now = utcnow()
    row = await db.peek(_LOOKUP, {"principal": fp.principal_id, "key_id": fp.key})
    if row is None:
        return Claimed(fresh=True)
    method, path, body_hash, status_code, sealed_body, created_at = row
    if aware(created_at) <= now - TTL:
        return Claimed()
    if (method, path, body_hash) != (fp.method, fp.path[:MAX_PATH], fp.body_hash):
        return Reused()
    if status_code != IN_FLIGHT:
        return _replay(fp, status_code, sealed_body)
    if aware(created_at) > now - ABANDONED:
        return InFlight()
    return Claimed()


def answer_text(body: dict[str, Any]) -> str:
    """A JSON answer exactly as the app sends it (``JSONResponse``), to be replayed as is."""
    return json.dumps(body, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))
