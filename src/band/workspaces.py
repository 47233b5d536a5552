"""Working folders for coding-agent adapters: one folder per room, owned by one room at a time.

A *resolver* maps a room id to an absolute folder. ``create_room_workspace_resolver(root)``
gives every room its own child of ``root``; without a resolver a room works in
``./.band-workspaces/<room>``. ``RoomWorkspaces`` keeps which room holds which folder, so two
live rooms are never handed the same one.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "RoomWorkspaces",
    "WorkspaceResolver",
    "claim_room_workspace",
    "create_room_workspace_resolver",
    "is_host_absolute",
    "release_room_workspace",
    "resolve_room_workspace",
    "workspace_resolver_for",
]

logger = logging.getLogger(__name__)

WorkspaceResolver = Callable[[str], str]
DEFAULT_WORKSPACE_ROOT = ".band-workspaces"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def create_room_workspace_resolver(root: str | os.PathLike[str]) -> WorkspaceResolver:
    """``resolve(room_id) -> str``: ``<root>/<room id>``, absolute and created on first use.

    The room id is reduced to safe characters, so no room can reach outside ``root``.
    """
    base = Path(root).expanduser().resolve()

    def resolve(room_id: str) -> str:
        name = _UNSAFE.sub("_", room_id).strip(".") or "room"
        path = base / name
        path.mkdir(parents=True, exist_ok=True)
        return str(path)

    return resolve


def is_host_absolute(path: str) -> bool:
    """Whether ``path`` is absolute on this operating system (on Windows: with a drive or share)."""
    return Path(path).is_absolute()


def resolve_room_workspace(room_id: str, workspace_for_room: WorkspaceResolver | None) -> str:
    """The room's folder, created: the resolver's answer (which must be absolute), else the
    default ``./.band-workspaces/<room>``."""
    if workspace_for_room is None:
        return create_room_workspace_resolver(Path.cwd() / DEFAULT_WORKSPACE_ROOT)(room_id)
    answer = workspace_for_room(room_id)
    folder = os.fspath(answer) if isinstance(answer, (str, os.PathLike)) else None
    if not folder or not is_host_absolute(folder):
        raise ValueError(f"workspace_for_room must return an absolute path, got {answer!r}")
    real = os.path.realpath(folder)
    Path(real).mkdir(parents=True, exist_ok=True)
    return real


def workspace_resolver_for(
    cwd: str | None, workspace_for_room: WorkspaceResolver | None
) -> WorkspaceResolver | None:
    """One resolver from an adapter's ``cwd`` (a root holding a folder per room) or its
    ``workspace_for_room``; giving both is an error."""
    if cwd is None:
        return workspace_for_room
    if workspace_for_room is not None:
        raise ValueError("set either cwd or workspace_for_room, not both")
    return create_room_workspace_resolver(cwd)


def claim_room_workspace(room_id: str, workspace: str, workspace_rooms: dict[str, str]) -> None:
    """Record ``room_id`` as the holder of ``workspace`` in ``workspace_rooms`` (folder -> room);
    a folder another room holds is refused with ``ValueError``."""
    holder = workspace_rooms.get(workspace)
    if holder is not None and holder != room_id:
        raise ValueError(
            f"workspace_for_room gave {workspace!r} to room {room_id!r}, "
            f"but room {holder!r} works there"
        )
    workspace_rooms[workspace] = room_id


def release_room_workspace(room_id: str, workspace: str, workspace_rooms: dict[str, str]) -> None:
    """Give ``workspace`` back if ``room_id`` holds it; a folder since claimed by another room
    stays with that room."""
    holder = workspace_rooms.get(workspace)
    if holder == room_id:
        del workspace_rooms[workspace]
    elif holder is not None:
        logger.debug("Room %s no longer holds %s (room %s does)", room_id, workspace, holder)


class RoomWorkspaces:
    """The folders an adapter's rooms work in; a room keeps its folder until it is released."""

    def __init__(self, resolver: WorkspaceResolver | None = None) -> None:
        self._resolver = resolver
        self._by_room: dict[str, str] = {}
        self._holders: dict[str, str] = {}

    @property
    def rooms(self) -> tuple[str, ...]:
        """Rooms holding a folder now."""
        return tuple(self._by_room)

    def workspace(self, room_id: str) -> str:
        """The folder ``room_id`` holds (``KeyError`` when it holds none)."""
        return self._by_room[room_id]

    def claim(self, room_id: str, workspace: str | None = None) -> str:
        """The room's folder: the one it holds, else ``workspace``, else the resolver's."""
        folder = self._by_room.get(room_id) or workspace
        if folder is None:
            folder = resolve_room_workspace(room_id, self._resolver)
        claim_room_workspace(room_id, folder, self._holders)
        self._by_room[room_id] = folder
        return folder

    def release(self, room_id: str, workspace: str | None = None) -> None:
        """Give back the room's folder (only if it is ``workspace``, when that is given)."""
        folder = self._by_room.get(room_id)
        if folder is None or workspace not in (None, folder):
            return
        release_room_workspace(room_id, folder, self._holders)
        del self._by_room[room_id]

    @contextmanager
    def claiming(self, room_id: str) -> Iterator[str]:
        """Claim the room's folder for a setup; a setup that raises gives it back."""
        folder = self.claim(room_id)
        try:
            yield folder
        except BaseException:
            self.release(room_id, folder)
            raise
