"""The writes a unit of work ran straight on SQLite's writer, kept to run them again.

``store.direct`` notes each statement it runs for a unit of the group commit; when a later
unit of the same batch fails, the batch goes back to its savepoint and the units before it
are repeated from their logs (``store.group_commit``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

__all__ = ["StatementLog"]


class StatementLog:
    """The writes a unit of work ran through ``direct.execute`` and ``direct.scalar``, with
    their arguments, to run again after its batch was rolled back to before it.
    ``replayable`` is False once the unit wrote some other way (``direct.unlogged``);
    ``changes`` counts the rows its statements changed (``rowcount``), for the unit to compare
    with its connection's ``total_changes``."""

    __slots__ = ("changes", "replayable", "statements")

    def __init__(self) -> None:
        self.statements: list[tuple[str, list[tuple[Any, ...]]]] = []
        self.replayable = True
        self.changes = 0

    def replay(self, driver: sqlite3.Connection) -> None:
        """Run every statement again, in order (raises ``sqlite3.Error`` as the driver does)."""
        for sql, args in self.statements:
            if len(args) == 1:
                driver.execute(sql, args[0])
            else:
                driver.executemany(sql, args)
