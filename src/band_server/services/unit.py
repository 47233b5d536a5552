"""A write unit of work: one transaction, then (only after commit) its broadcasts."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import tracing, utcnow

from ..fanout.bus import Broadcast
from .idempotency import records as idempotency
from .idempotency import row_keys
from .ports import Backbone

if TYPE_CHECKING:
    from ..store.group_commit import ExcInfo

_SECRET_FIELDS = frozenset(("api_key", "access_token", "key", "token", "secret"))


class UnitOfWork:
    """What a unit's work writes through (``session``) and leaves for after its commit: the
    broadcasts, the request's kept answer, a speech post's ``Idempotency-Key`` claim, the
    node's in-memory changes that must follow the commit (``on_commit``).

    A plain class, not a dataclass: one is made every unit, and the generated ``__init__``
    (its default factory, keywords) cost more."""

    __slots__ = (
        "answer",
        "broadcasts",
        "committed",
        "keyed_row",
        "row_claim",
        "secret_free",
        "session",
    )

    def __init__(
        self, session: AsyncSession, row_claim: idempotency.PendingClaim | None = None
    ) -> None:
        self.session = session
        self.broadcasts: list[Broadcast] = []
        self.answer: tuple[int, dict[str, Any]] | None = None
        self.secret_free = False
        # A speech post's claim, to ride on the message this unit posts (``row_keys``).
        self.row_claim = row_claim
        self.keyed_row = False
        self.committed: list[Callable[[], None]] | None = None

    def row_key(self) -> dict[str, str]:
        """The ``Idempotency-Key``'s columns for the message this unit posts (the first one
        only), or nothing. If that message's insert fails, call :meth:`key_taken`."""
        if self.row_claim is None or self.keyed_row:
            return {}
        self.keyed_row = True
        return row_keys.columns(self.row_claim.fingerprint)

    def key_taken(self) -> idempotency.ClaimRefused:
        """The keyed message's insert found the key used: the error that rolls the unit back
        (the request's layer then reads what holds the key)."""
        assert self.row_claim is not None  # nosec B101 # narrows for mypy: only a keyed unit gets here
        self.row_claim.taken = True
        return idempotency.refusal(idempotency.InFlight())

    def emit(self, *broadcasts: Broadcast) -> None:
        self.broadcasts.extend(broadcasts)

    def on_commit(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` once the unit commits (never if it rolls back), before its broadcasts
        go out; it may :meth:`emit` more."""
        if self.committed is None:
            self.committed = []
        self.committed.append(hook)

    def keep_answer(
        self, status_code: int, body: dict[str, Any], *, secret_free: bool = False
    ) -> dict[str, Any]:
        """The request's 2xx answer, kept for its ``Idempotency-Key`` in this transaction.

        Call it last in the block, with exactly what the route returns; returns ``body``.
        Without a key (or in a later unit of the request) it changes nothing. The answer is
        kept sealed (``replay_seal``), unless ``secret_free``: a route whose answers can hold
        no secret (ids of what it created) says so, and its answer is kept as it is (one
        with a key or token field is sealed all the same).
        """
        self.answer = (status_code, body)
        data = body.get("data")
        self.secret_free = secret_free and not (
            isinstance(data, dict) and not _SECRET_FIELDS.isdisjoint(data)
        )
        return body


class _Write:
    """Persist first, fan out second: a broadcast never announces uncommitted data.

    In a request with an ``Idempotency-Key``, the first unit also writes the key's record as
    its last statement (the claim, with the answer when the unit kept one), so the record
    commits (or rolls back) with the work; a speech post's key rides on its message instead
    (:meth:`UnitOfWork.row_key`), and no record is written.

    An object, not a generator-based context manager (an async generator costs the loop a
    first-iteration hook and a weak reference, per unit); called as :data:`write`.
    """

    __slots__ = ("_pending", "_platform", "_unit", "_uow")

    def __init__(self, platform: Backbone) -> None:
        self._platform = platform

    async def __aenter__(self) -> UnitOfWork:
        self._pending = pending = idempotency.pending_claim()
        self._unit = db_unit = self._platform.db.write()
        session = await db_unit.__aenter__()
        self._uow = UnitOfWork(session, pending if pending and pending.on_row else None)
        return self._uow

    async def __aexit__(self, *exc_info: *ExcInfo) -> None:
        db_unit, uow, pending = self._unit, self._uow, self._pending
        if exc_info[1] is not None:
            await db_unit.__aexit__(*exc_info)  # rolls back; the exception goes on
            return
        try:
            if uow.keyed_row:
                now = utcnow()
                if row_keys.sweep_due(now):
                    await row_keys.sweep(uow.session, now)
            elif pending is not None:
                await _record(uow.session, pending, uow)
        except BaseException as failed:
            await db_unit.__aexit__(type(failed), failed, failed.__traceback__)
            raise
        if tracing.TRACING.on:  # the commit is a span of the request's trace
            with tracing.span("band.commit"):
                await db_unit.__aexit__(None, None, None)
        else:
            await db_unit.__aexit__(None, None, None)
        if pending is not None:
            pending.claimed = True
            pending.kept = uow.answer is not None or uow.keyed_row
        if uow.committed is not None:
            for hook in uow.committed:
                hook()
        for b in uow.broadcasts:
            await self._platform.bus.publish(b)


write = _Write
"""``async with write(platform) as uow``: a unit of work (:class:`_Write`; the class itself,
not a function returning one: a call less per unit)."""


async def _record(
    session: AsyncSession, pending: idempotency.PendingClaim, uow: UnitOfWork
) -> None:
    answer = uow.answer
    kept = None
    if answer is not None:
        text = idempotency.answer_text(answer[1])
        kept = idempotency.Answer(answer[0], text, secret_free=uow.secret_free)
    try:
        outcome = await idempotency.record(session, pending.fingerprint, kept, fresh=pending.fresh)
    except IntegrityError:
        pending.taken = True  # the request's layer then reads what holds the key
        outcome = idempotency.InFlight()  # a concurrent request wrote the same key first
    if not isinstance(outcome, idempotency.Claimed):
        raise idempotency.refusal(outcome)  # the unit rolls back, the work with it
