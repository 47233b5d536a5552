"""Opaque keyset cursors for lists ordered by (a sort key, id).

A cursor carries the sort it was issued under and the last row's (key, id), so the next page
starts right after that row whatever was inserted meanwhile. A cursor from another sort, or
one that is not ours, is 422 ``/cursor``.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, or_
from sqlalchemy.orm import InstrumentedAttribute

from ..errors import ValidationFailed


def encode(sort: str, order: str, key: Any, row_id: str) -> str:
    value = key.isoformat() if isinstance(key, datetime) else key
    raw = json.dumps({"s": sort, "o": order, "k": value, "i": row_id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode(cursor: str, sort: str, order: str) -> tuple[Any, str]:
    """``(key, id)`` of the row the cursor points after, or 422."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        data = json.loads(raw)
        if not isinstance(data, dict) or not isinstance(data.get("i"), str):
            raise ValueError(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ValidationFailed("cursor is invalid", {"/cursor": ["is invalid"]}) from None
    if (data.get("s"), data.get("o")) != (sort, order):
        raise ValidationFailed(
            "cursor was issued for another sort order", {"/cursor": ["does not match the sort"]}
        )
    return data.get("k"), data["i"]


def after(
    column: InstrumentedAttribute[Any],
    id_column: InstrumentedAttribute[Any],
    key: Any,
    row_id: str,
    order: str,
) -> ColumnElement[bool]:
    """Rows strictly after (key, id) in ``order``."""
    if isinstance(key, str) and column.type.python_type is datetime:
        key = datetime.fromisoformat(key)
    if order == "desc":
        return or_(column < key, and_(column == key, id_column < row_id))
    return or_(column > key, and_(column == key, id_column > row_id))
