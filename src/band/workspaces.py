"""A folder per room under one root, for adapters that give a tool a working directory."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

__all__ = ["WorkspaceResolver", "create_room_workspace_resolver"]

WorkspaceResolver = Callable[[str], Path]
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def create_room_workspace_resolver(root: str | Path) -> WorkspaceResolver:
    """``resolve(room_id) -> Path``: ``<root>/<room id>``, created on first use.

    The room id is reduced to safe characters, so no room can reach outside ``root``.
    """
    base = Path(root).expanduser().resolve()

    def resolve(room_id: str) -> Path:
        name = _UNSAFE.sub("_", room_id).strip(".") or "room"
        path = base / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    return resolve
