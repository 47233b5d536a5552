"""Per-room workspace folders and the environment-variable layer of adapter configs."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["WorkspaceForRoom", "env_defaults", "room_workspace"]

WorkspaceForRoom = Callable[[str], "str | os.PathLike[str]"]
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
DEFAULT_ROOT = ".band-workspaces"


def room_workspace(room_id: str, workspace_for_room: WorkspaceForRoom | None) -> Path:
    """The room's folder (created): ``workspace_for_room(room_id)`` or
    ``./.band-workspaces/<room>``, absolute."""
    if workspace_for_room is not None:
        folder = Path(workspace_for_room(room_id))
    else:
        folder = Path(DEFAULT_ROOT) / (_UNSAFE.sub("_", room_id) or "room")
    folder = folder.expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def env_defaults(
    prefix: str,
    names: Iterable[str],
    given: Mapping[str, Any],
    *,
    aliases: Mapping[str, str] | None = None,
    split: tuple[str, ...] = (),
    structured: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``given`` plus ``<PREFIX><FIELD>`` environment values for fields not given.

    An explicit value always wins. ``aliases`` name a field's variable outright (tried
    first, then the prefixed name). ``split`` fields are argv lists split on whitespace;
    ``structured`` fields are JSON; the rest are left to the model's own coercion.
    """
    merged = dict(given)
    for name in names:
        if name in merged:
            continue
        candidates = [f"{prefix}{name.upper()}"]
        if aliases and name in aliases:
            candidates.insert(0, aliases[name])
        raw = next((os.environ[v] for v in candidates if os.environ.get(v, "").strip()), None)
        if raw is None:
            continue
        if name in split:
            merged[name] = raw.split()
        elif name in structured:
            try:
                merged[name] = json.loads(raw)
            except ValueError as exc:
                raise ValueError(f"{candidates[-1]} must be JSON: {exc}") from None
        else:
            merged[name] = raw
    return merged
