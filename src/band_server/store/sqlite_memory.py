"""How much memory SQLite holds in this process (its page caches above all), for ``/metrics``.

Each connection keeps up to ``cache_size`` of pages (``store.sqlite_inline``), so a node's RSS
grows with its database until the caches are full; this figure tells that growth from a leak
(``bench/soak.py``). Python's ``sqlite3`` does not expose ``sqlite3_memory_used()``, the library
it links does: it is read through ``ctypes``, and is None where the symbol can't be found.
"""

from __future__ import annotations

import _sqlite3
import ctypes
from collections.abc import Callable
from functools import cache

__all__ = ["sqlite_memory_bytes"]


@cache
def _memory_used() -> Callable[[], int] | None:
    try:
        function = ctypes.CDLL(_sqlite3.__file__).sqlite3_memory_used
    except (OSError, AttributeError):
        return None
    function.restype, function.argtypes = ctypes.c_int64, []
    return lambda: int(function())


def sqlite_memory_bytes() -> int | None:
    """Bytes SQLite has allocated in this process, all connections together (None: unknown)."""
    read = _memory_used()
    return None if read is None else read()
