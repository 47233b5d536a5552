"""How :mod:`store.direct` binds a Core write statement: compiled once per statement, dialect
and set of parameter names (:class:`Plan`), each row's values taken in one call and converted
by the column types' own bind processors (SQLite's ``DATETIME``, and a ``JSON`` value whose
text is already written, by faster, equal ones), with the Python-side defaults SQLAlchemy would
apply. ``tests/server/store/test_direct_statements.py`` and ``tests/scale/test_direct_equal.py``
compare the rows with the session's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import Column
from sqlalchemy.dialects.sqlite.base import DATETIME as SQLITE_DATETIME
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.types import JSON, TypeEngine

from band_protocol import iso

from ..json_text import Encoded, dumps

__all__ = ["Params", "Plan", "Processor", "bind_of", "plan_for", "plan_in_order", "plans"]

Params = Mapping[str, Any]
Processor = Callable[[Any], Any] | None
_DEFAULT_DATETIME_FORMAT = SQLITE_DATETIME._storage_format


class Plan:
    """One statement compiled for one set of parameter names, and how to bind a row of them.

    A row's values are taken in one C call (``itemgetter``) and only the binds with a
    processor are converted, in bind order. A scalar default is a value like the statement's
    own literals (``fixed``); only a callable one is called, once a row.
    """

    __slots__ = ("_convert", "_fixed", "_get", "binds", "defaults", "fixed", "sql")

    def __init__(
        self,
        sql: str,
        binds: tuple[tuple[str, Processor], ...],  # positional order, with each processor
        # Literals of the statement itself (``last_seq + 1``) and the scalar defaults of the
        # columns the parameters leave out.
        fixed: tuple[tuple[str, Any], ...],
        # The callable defaults of the columns the parameters leave out, as SQLAlchemy wraps
        # them (taking the execution context: given None).
        defaults: tuple[tuple[str, Callable[[Any], Any]], ...],
    ) -> None:
        self.sql = sql
        self.binds = binds
        self.fixed = fixed
        self.defaults = defaults
        self._fixed = dict(fixed)
        self._get = _getter(tuple(name for name, _ in binds))
        self._convert = tuple((i, p) for i, (_, p) in enumerate(binds) if p is not None)

    def arguments(self, params: Params) -> tuple[Any, ...]:
        values: Params = params
        if self.fixed or self.defaults:
            merged = self._fixed.copy()
            for key, default in self.defaults:
                merged[key] = default(None)
            merged.update(params)
            values = merged
        row: tuple[Any, ...] = self._get(values)
        if not self._convert:
            return row
        out = list(row)
        for i, process in self._convert:
            out[i] = process(out[i])
        return tuple(out)


def _getter(names: tuple[str, ...]) -> Callable[[Params], tuple[Any, ...]]:
    """The values of ``names`` in a mapping, as a tuple (``itemgetter`` gives a bare value
    for one name)."""
    if len(names) > 1:
        return itemgetter(*names)
    if names:
        name = names[0]
        return lambda values: (values[name],)
    return lambda _values: ()


# Keyed by the statement object itself: the hot statements are built once, at import.
plans: dict[tuple[UpdateBase, Dialect, frozenset[str]], Plan | None] = {}


# The same plans by the parameters' keys in their order (a call site builds its dict the same
# way each time): a tuple of the keys costs less than a set of them.
_in_order: dict[tuple[UpdateBase, Dialect, tuple[str, ...]], Plan | None] = {}


def plan_in_order(stmt: UpdateBase, dialect: Dialect, sample: Params) -> Plan | None:
    """:func:`plan_for` by the keys of ``sample`` in their order (the hot path's lookup)."""
    key = (stmt, dialect, tuple(sample))
    try:
        return _in_order[key]
    except KeyError:
        plan = _in_order[key] = plan_for(stmt, dialect, frozenset(key[2]), sample)
        return plan


def _default_of(column: Column[Any], update: bool) -> tuple[bool, Any] | None:
    """The Python-side default of a column the parameters leave out: ``(True, value)`` for
    a scalar, ``(False, callable)`` for a callable (SQLAlchemy's wrapper, which takes the
    execution context), None for none."""
    default = column.onupdate if update else column.default
    if default is None:
        return None
    if getattr(default, "is_scalar", False):
        return True, default.arg  # type: ignore[attr-defined]
    if getattr(default, "is_callable", False):
        return False, default.arg  # type: ignore[attr-defined]
    raise LookupError("a SQL-expression default needs the session")


def plan_for(
    stmt: UpdateBase, dialect: Dialect, keys: frozenset[str], sample: Params
) -> Plan | None:
    """``stmt``'s plan for parameters named ``keys`` (``sample``: one row of them), or None
    where only the session can run it (SQL-expression defaults, ``IN`` lists...)."""
    cache_key = (stmt, dialect, keys)
    if cache_key in plans:
        return plans[cache_key]
    compiled = stmt.compile(dialect=dialect, column_keys=sorted(keys))
    plan: Plan | None = None
    try:
        if compiled.positiontup is None or any(b.expanding for b in compiled.binds.values()):
            raise LookupError("not a plain positional statement")
        values: list[tuple[str, Any]] = []
        calls: list[tuple[str, Callable[[Any], Any]]] = []
        prefetch = [(c, False) for c in compiled.insert_prefetch]
        prefetch += [(c, True) for c in compiled.update_prefetch]
        for column, update in prefetch:
            default = _default_of(column, update)
            if default is not None:
                (values if default[0] else calls).append((column.key, default[1]))
        skip = keys | {k for k, _ in values} | {k for k, _ in calls}
        fixed = tuple(
            (name, value)
            for name, value in compiled.construct_params(dict(sample)).items()
            if name not in skip
        )
        binds = tuple(
            (name, bind_of(compiled.binds[name].type, dialect)) for name in compiled.positiontup
        )
        plan = Plan(compiled.string, binds, (*fixed, *values), tuple(calls))
    except LookupError:
        plan = None
    plans[cache_key] = plan
    return plan


# The last ``datetime`` any of them formatted, and its text: one tuple, read and replaced
# whole (safe across threads).
_last_datetime: list[tuple[datetime, str]] = [(datetime.min, "")]


def _sqlite_datetime(fallback: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """SQLite's ``DATETIME`` bind processor (default storage format), for ``datetime``
    values: the same text as SQLAlchemy's (``YYYY-MM-DD HH:MM:SS.ffffff``, the fields as they
    are, any offset left out) from ``isoformat``, a third of the cost of its ``%`` format;
    the last value's text is reused when the same object comes again, in any column of any
    statement (a post binds its ``now`` as the message's ``created_at`` and ``updated_at``
    and its deliveries'). A UTC or naive value's text is cut from the wire's (``iso``, which
    keeps it: the post's payload then formats nothing). Dates and ``None`` go to
    ``fallback``."""
    last = _last_datetime

    def process(value: Any) -> Any:
        if type(value) is not datetime:
            return fallback(value)
        seen = last[0]
        if seen[0] is value:
            return seen[1]
        tz = value.tzinfo
        if (tz is None or tz is UTC) and value.year >= 1000:
            wire = iso(value)  # "YYYY-MM-DDTHH:MM:SS.ffffffZ": the same fields
            text = wire[:10] + " " + wire[11:26]
        else:
            text = value.isoformat(" ", "microseconds")[:26]
        last[0] = (value, text)
        return text

    return process


def _json_text(fallback: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A ``JSON`` column's bind processor where its serializer is ``json_text.dumps`` and
    its text goes to the driver as it is: an :class:`~band_server.json_text.Encoded` value
    binds its own text (what ``dumps`` returns for it) without SQLAlchemy's checks for
    ``None`` and ``null()`` around the call; anything else goes to ``fallback``."""

    def process(value: Any) -> Any:
        if type(value) is Encoded:
            return value.text
        return fallback(value)

    return process


def bind_of(type_: TypeEngine[Any], dialect: Dialect) -> Processor:
    """The bind processor of ``type_`` on ``dialect`` (SQLite's ``DATETIME`` and, with the
    engine's serializer, ``JSON``: faster, equal ones)."""
    impl = type_.dialect_impl(dialect)
    processor = impl.bind_processor(dialect)
    if processor is None:
        return None
    if isinstance(impl, SQLITE_DATETIME) and impl._storage_format == _DEFAULT_DATETIME_FORMAT:
        return _sqlite_datetime(processor)
    if (
        isinstance(impl, JSON)
        and getattr(dialect, "_json_serializer", None) is dumps
        and impl._str_impl.bind_processor(dialect) is None
    ):
        return _json_text(processor)
    return processor
