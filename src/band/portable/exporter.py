"""``band export``: what a person (or an admin, the whole deployment) can read, through the
REST API of any Band-compatible platform, into one archive (``archive.ArchiveWriter``).

A person's export reads the person surface (``/api/v1/me/...``): their profile, agents,
rooms (roster, every message and event, tasks with their history, the board, the files the
messages carry) and contacts. A deployment's export reads the admin surface
(``/api/v1/admin/...``): every person, agent, room and contact edge. Parts a platform does not
offer (404) are left out and counted in the summary's notes, not fatal.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from band.client.rest import ApiError, AsyncRestClient

from .archive import ArchiveWriter, Manifest, plain
from .progress import LineProgress, Progress

__all__ = ["ExportSummary", "Scope", "export_archive"]

Scope = Literal["person", "deployment"]
PAGE = 100
OPTIONAL = frozenset({404, 405, 501})  # a part this platform does not offer


@dataclass
class ExportSummary:
    path: Path
    manifest: Manifest
    counts: dict[str, int]
    size: int
    seconds: float
    notes: list[str] = field(default_factory=list)


def _archive_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


Fetch = Callable[..., Awaitable[Any]]


async def _keyset(fetch: Fetch, *args: Any, **params: Any) -> AsyncIterator[dict[str, Any]]:
    """Every item of a cursor-paged list."""
    cursor: str | None = None
    limit = params.pop("limit", PAGE)
    while True:
        page = await fetch(*args, cursor=cursor, limit=limit, **params)
        for item in page.data or []:
            yield plain(item)
        meta = page.metadata
        cursor = meta.get("next_cursor") if meta is not None else None
        if not cursor or not (meta is not None and meta.get("has_more", True)):
            return


async def _pages(fetch: Fetch, **params: Any) -> AsyncIterator[dict[str, Any]]:
    """Every item of a page-numbered list."""
    number = 1
    while True:
        page = await fetch(page=number, page_size=PAGE, **params)
        for item in page.data or []:
            yield plain(item)
        meta = page.metadata
        total = int(meta.get("total_pages") or 1) if meta is not None else 1
        if number >= total or not page.data:
            return
        number += 1


class _Export:
    def __init__(
        self, client: AsyncRestClient, writer: ArchiveWriter, scope: Scope, progress: Progress
    ) -> None:
        self.c, self.w, self.scope, self.progress = client, writer, scope, progress
        self.people: set[str] = set()
        self.agents: set[str] = set()
        self.files: set[str] = set()
        self.notes: list[str] = []

    # -- the surfaces ------------------------------------------------------------------------

    def _room_api(self, name: str) -> Fetch:
        admin = {
            "messages": self.c.admin_api_chats.list_chat_messages,
            "participants": self.c.admin_api_chats.list_chat_participants,
            "tasks": self.c.admin_api_chats.list_chat_tasks,
            "history": self.c.admin_api_chats.get_chat_task_history,
            "board": self.c.admin_api_chats.get_chat_board,
            "file": self.c.admin_api_chats.download_chat_file,
        }
        person = {
            "messages": self.c.human_api_messages.list_my_chat_messages,
            "participants": self.c.human_api_participants.list_my_chat_participants,
            "tasks": self.c.human_api_chat_tasks.list_my_chat_tasks,
            "history": self.c.human_api_chat_tasks.get_my_chat_task_history,
            "board": self.c.human_api_chat_tasks.get_my_chat_board,
            "file": self.c.human_api_files.download_my_chat_file,
        }
        fetch: Fetch = (admin if self.scope == "deployment" else person)[name]
        return fetch

    async def _optional(self, what: str, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await work()
        except ApiError as exc:
            if exc.status_code not in OPTIONAL:
                raise
            self.notes.append(f"{what}: not offered by this platform ({exc.status_code})")

    # -- people and agents -------------------------------------------------------------------

    def person(self, data: dict[str, Any]) -> None:
        if data["id"] not in self.people and data["id"] not in self.agents:
            self.people.add(data["id"])
            self.w.add("person", data)

    def agent(self, data: dict[str, Any]) -> None:
        if data["id"] not in self.agents and data["id"] not in self.people:
            self.agents.add(data["id"])
            self.w.add("agent", data)

    async def directory(self) -> None:
        if self.scope == "deployment":
            api = self.c.admin_api_directory
            self.progress.start("people and agents")
            async for person in _keyset(api.list_people):
                self.person(person)
                self.progress.advance()
            async for agent in _keyset(api.list_agents):
                self.agent(agent)
                self.progress.advance()
            return
        me = plain((await self.c.human_api_profile.get_my_profile()).data)
        self.me = me["id"]
        self.person(me)
        self.progress.start("agents")
        async for agent in _pages(self.c.human_api_agents.list_my_agents):
            self.agent({**agent, "owner_handle": me["handle"], "owner_id": me["id"]})
            self.progress.advance()

    def _author(self, msg: dict[str, Any]) -> None:
        """A sender no longer in the room: kept as who they were, by name."""
        sid, stype = msg["sender_id"], msg["sender_type"]
        if stype == "System" or sid in self.people or sid in self.agents:
            return
        name = msg.get("sender_name") or "Former member"
        record = {"id": sid, "name": name, "handle": f"former-{sid[:8].lower()}"}
        self.agent(record) if stype == "Agent" else self.person(record)
        self.notes.append(f"{stype} {name} ({sid}) left: recreated as @{record['handle']}")

    # -- rooms -------------------------------------------------------------------------------

    async def rooms(self) -> list[dict[str, Any]]:
        if self.scope == "deployment":
            return [r async for r in _keyset(self.c.admin_api_directory.list_chats)]
        return [r async for r in _pages(self.c.human_api_chats.list_my_chats)]

    async def room(self, room: dict[str, Any]) -> None:
        rid = room["id"]
        self.w.add("room", room)
        roster = await self._room_api("participants")(rid)
        for part in roster.data or []:
            p = plain(part)
            who = {"id": p["id"], "name": p.get("name") or p.get("handle") or p["id"]}
            who["handle"] = p.get("handle") or who["name"]
            if p["type"] == "Agent":
                self.agent({**who, "description": p.get("description")})
            else:
                self.person(who)
            self.w.add("participant", {**p, "room_id": rid})
        seq = 0
        async for msg in _keyset(self._room_api("messages"), rid, sort_order="asc"):
            seq = int(msg.get("seq") or seq + 1)
            self._author(msg)
            msg["attachments"] = [
                a for a in msg.get("attachments") or [] if await self._file(rid, msg, a)
            ]
            self.w.add("message", {**msg, "chat_room_id": rid, "seq": seq})
            self.progress.advance()
        await self._optional(f"room {rid} tasks", lambda: self._tasks(rid))
        await self._optional(f"room {rid} board", lambda: self._board(rid))

    async def _file(self, rid: str, msg: dict[str, Any], item: dict[str, Any]) -> bool:
        fid, sha = item.get("id"), item.get("sha256")
        if not fid or not sha:
            return False
        if fid in self.files:
            return True
        try:
            chunks = await self._room_api("file")(rid, fid)
            content = b"".join([c async for c in chunks])
            self.w.add_file(sha, content)
        except (ApiError, ValueError) as exc:
            self.notes.append(f"file {item.get('name')} ({fid}) left out: {exc}")
            return False
        self.files.add(fid)
        record = {**item, "room_id": rid, "bytes": len(content), "uploader_id": msg["sender_id"]}
        self.w.add("file", record)
        return True

    async def _tasks(self, rid: str) -> None:
        async for task in _keyset(self._room_api("tasks"), rid, state="all", limit=50):
            history = _keyset(self._room_api("history"), rid, task["id"], limit=50)
            self.w.add("task", {**task, "chat_room_id": rid, "history": [h async for h in history]})

    async def _board(self, rid: str) -> None:
        board = plain((await self._room_api("board")(rid, include="history")).data)
        if board.get("goal_title") is not None or board.get("goal_summary") is not None:
            self.w.add("board", {**board, "id": rid, "history": board.get("history") or []})

    async def contacts(self) -> None:
        self.progress.start("contacts")
        if self.scope == "deployment":
            async for edge in _keyset(self.c.admin_api_directory.list_contacts):
                if edge["owner_id"] in self.people | self.agents:
                    self.w.add("contact", edge)
                    self.progress.advance()
            return
        async for contact in _pages(self.c.human_api_contacts.list_my_contacts):
            # A person's contact row: its own id, and the contact's as ``contact_id``.
            edge = {
                **contact,
                "owner_id": self.me,
                "id": contact.get("contact_id") or contact["id"],
            }
            edge["type"] = contact.get("contact_type") or contact.get("type")
            self.w.add("contact", edge)
            self.progress.advance()


async def export_archive(
    client: AsyncRestClient,
    path: Path,
    *,
    scope: Scope = "person",
    source_url: str = "",
    progress: Progress | None = None,
) -> ExportSummary:
    """Export through ``client`` into ``path`` (a directory, or ``.tar`` / ``.tar.gz``)."""
    began = time.monotonic()
    progress = progress or LineProgress()
    writer = ArchiveWriter(path, source={"url": source_url, "scope": scope})
    job = _Export(client, writer, scope, progress)
    try:
        await job.directory()
        rooms = await job.rooms()
        progress.start(f"messages of {len(rooms)} rooms")
        for room in rooms:
            await job.room(room)
        await job.contacts()
        writer.source["exported_by"] = getattr(job, "me", None) or "admin"
        manifest = writer.close()
    except BaseException:
        writer.abort()
        raise
    finally:
        progress.finish()
    counts = {kind: writer.counts[kind] for kind in writer.counts}
    return ExportSummary(
        path, manifest, counts, _archive_size(path), time.monotonic() - began, job.notes
    )
