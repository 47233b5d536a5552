"""Whether an error means the database can't be reached right now (a retry later may work),
as opposed to a refusal or a bug: asked by the REST error handlers (503) and the socket
handshake (503, logged without a traceback)."""

from __future__ import annotations

import socket
import sqlite3

from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

# SQLSTATE: class 08 (connection exception), operator intervention (admin / crash shutdown,
# cannot connect now), too many connections.
_UNAVAILABLE_STATES = ("08", "57P01", "57P02", "57P03", "53300")
_SQLITE_UNAVAILABLE = ("database is locked", "unable to open database file", "disk i/o error")


def _links(exc: BaseException) -> list[BaseException]:
    """The exception, what it wraps (``orig``) and its causes, at most a dozen deep."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo and len(seen) < 12:
        e = todo.pop()
        if e is None or any(e is s for s in seen):
            continue
        seen.append(e)
        orig = getattr(e, "orig", None)
        todo += [e.__cause__, e.__context__, orig if isinstance(orig, BaseException) else None]
    return seen


def dependency_unavailable(exc: BaseException) -> bool:
    """True when ``exc`` says the database can't be reached now (retrying later may work)."""
    for e in _links(exc):
        if isinstance(e, PoolTimeout | ConnectionError | TimeoutError | socket.gaierror):
            return True
        if isinstance(e, DBAPIError) and e.connection_invalidated:
            return True
        state = str(getattr(e, "sqlstate", None) or getattr(e, "pgcode", None) or "")
        if state.startswith(_UNAVAILABLE_STATES):
            return True
        if isinstance(e, sqlite3.OperationalError) and str(e).lower().startswith(
            _SQLITE_UNAVAILABLE
        ):
            return True
    return False
