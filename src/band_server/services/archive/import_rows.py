"""What each archive record becomes here: people and agents (mapped by handle, or made with a
key shown once), rooms, participants, tasks, boards, messages (``import_messages``) and
contacts.

Rows are written as the archive says (authors, times, task numbers), through the models
rather than the posting services (which would post timeline events and start turns). Every id
a record holds is rewritten to what it became here (``import_messages.remap``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import topic
from band_protocol.archive import (
    AgentRecord,
    BoardRecord,
    ContactRecord,
    MessageRecord,
    ParticipantRecord,
    PersonRecord,
    RoomRecord,
    TaskRecord,
)
from band_server.errors import ApiError, Conflict, ValidationFailed
from band_server.fanout.bus import Broadcast
from band_server.services.archive.import_messages import instant, remap, write_messages
from band_server.services.identity import accounts
from band_server.services.identity.principals import Principal
from band_server.services.views import room_event
from band_server.store.models import (
    Agent,
    BoardHistory,
    Contact,
    ImportedRow,
    Participant,
    Room,
    RoomBoard,
    RoomTask,
    TaskAssignee,
    TaskHistory,
    User,
    new_id,
)

__all__ = ["Outcome", "Rows"]

ROLES = ("owner", "admin", "member")
DEFAULT_DESCRIPTION = "An agent imported from another Band deployment"


@dataclass
class Outcome:
    """One record's result: its new id (None when skipped), and a key made for it."""

    target_id: str | None
    created: bool
    api_key: str | None = None
    note: str | None = None


@dataclass
class Rows:
    """One batch's writer: the journal so far (``ids``), and what the batch adds to it."""

    session: AsyncSession
    import_id: str
    admin: Principal
    ids: dict[str, str]
    journal: list[dict[str, str]] = field(default_factory=list)
    broadcasts: list[Broadcast] = field(default_factory=list)

    def keep(self, kind: str, source_id: str, target_id: str) -> None:
        self.ids[source_id] = target_id
        self.journal.append(
            {
                "import_id": self.import_id,
                "kind": kind,
                "source_id": source_id,
                "target_id": target_id,
            }
        )

    async def flush_journal(self) -> None:
        if self.journal:
            await self.session.execute(insert(ImportedRow), self.journal)
            self.journal = []

    # -- people and agents -------------------------------------------------------------------

    async def person(self, rec: PersonRecord) -> Outcome:
        handle = rec.handle.strip().lower().removeprefix("@")
        if not accounts.USER_HANDLE.match(handle):
            handle = _valid_handle(accounts.slug(handle)[:40])
        found = await self.session.scalar(select(User.id).where(User.handle == handle))
        if found is not None:
            self.keep("person", rec.id, found)
            return Outcome(found, False, note=f"mapped to @{handle}")
        email = await self._free_email(rec.email)
        user, key = await accounts.create_user(
            self.session, name=rec.name.strip() or handle, handle=handle, email=email
        )
        self.keep("person", rec.id, user.id)
        return Outcome(user.id, True, key, note=f"created @{user.handle}")

    async def _free_email(self, email: str | None) -> str | None:
        if not email:
            return None
        try:
            address = accounts.normalise_email(email)
        except ValidationFailed:
            return None
        taken = await self.session.scalar(select(User.id).where(User.email == address))
        return None if taken else address

    async def agent(self, rec: AgentRecord) -> Outcome:
        handle = rec.handle.strip().lower()
        found = await self.session.scalar(
            select(Agent.id).where(Agent.handle == handle, Agent.deleted_at.is_(None))
        )
        if found is not None:
            self.keep("agent", rec.id, found)
            return Outcome(found, False, note=f"mapped to @{handle}")
        owner = await self._owner_of(rec)
        want = handle.rsplit("/", 1)[-1]
        if not accounts.AGENT_SLUG.match(want) or await self.session.scalar(
            select(Agent.id).where(Agent.handle == f"{owner.handle}/{want}")
        ):
            want = ""
        description = (rec.description or "").strip()
        try:
            tags = accounts.agent_tags(rec.tags)
        except ValidationFailed:
            tags = []
        agent, key = await accounts.create_agent(
            self.session,
            owner,
            name=_agent_name(rec.name),
            description=description if len(description) >= 10 else DEFAULT_DESCRIPTION,
            handle=want or None,
            tags=tags,
        )
        self.keep("agent", rec.id, agent.id)
        return Outcome(agent.id, True, key, note=f"created @{agent.handle}")

    async def _owner_of(self, rec: AgentRecord) -> User:
        owner_id = self.ids.get(rec.owner_id or "")
        handles = [rec.owner_handle, rec.handle.split("/", 1)[0] if "/" in rec.handle else None]
        user = await self.session.get(User, owner_id) if owner_id else None
        for handle in handles:
            if user is None and handle:
                user = await self.session.scalar(select(User).where(User.handle == handle.lower()))
        return user or await accounts.get_user(self.session, self.admin.id)

    async def _party(self, party_id: str) -> tuple[str, str, str, str] | None:
        """(type, id, name, handle) of a person or agent of this deployment, or None."""
        user = await self.session.get(User, party_id)
        if user is not None:
            return "User", user.id, user.name, user.handle
        agent = await self.session.get(Agent, party_id)
        if agent is not None:
            return "Agent", agent.id, agent.name, agent.handle
        return None

    # -- rooms -------------------------------------------------------------------------------

    async def room(self, rec: RoomRecord) -> Outcome:
        owner = await self._party(self.ids.get(rec.owner_id or "", "")) or (
            "User",
            self.admin.id,
            "",
            "",
        )
        room = Room(
            id=new_id(),
            title=rec.title,
            task_id=rec.task_id,
            owner_id=owner[1],
            owner_type=owner[0],
            last_seq=0,
            created_at=instant(rec.inserted_at),
            updated_at=instant(rec.updated_at),
        )
        self.session.add(room)
        await self.session.flush()
        self.keep("room", rec.id, room.id)
        return Outcome(room.id, True)

    async def _room(self, source_id: str) -> Room:
        room = await self.session.get(Room, self.ids.get(source_id, ""))
        if room is None:
            raise _unknown("room", source_id)
        return room

    async def participant(self, rec: ParticipantRecord) -> Outcome:
        room = await self._room(rec.room_id)
        party = await self._party(self.ids.get(rec.id, ""))
        if party is None:
            raise _unknown("participant", rec.id)
        ptype, pid, name, handle = party
        source = rec.key()
        exists = await self.session.scalar(
            select(Participant.id).where(
                Participant.room_id == room.id, Participant.participant_id == pid
            )
        )
        if exists is None:
            self.session.add(
                Participant(
                    room_id=room.id,
                    participant_id=pid,
                    participant_type=ptype,
                    role=rec.role if rec.role in ROLES else "member",
                    status="active" if rec.status == "active" else rec.status[:16],
                )
            )
            event = {"id": pid, "name": name, "type": ptype, "handle": handle}
            kind = "agent_rooms" if ptype == "Agent" else "user_rooms"
            self.broadcasts += [
                Broadcast(topic("room_participants", room.id), "participant_added", event),
                Broadcast(topic(kind, pid), "room_added", room_event(room).model_dump(mode="json")),
            ]
        self.keep("participant", source, pid)
        return Outcome(pid, exists is None)

    # -- tasks and the board -----------------------------------------------------------------

    async def task(self, rec: TaskRecord) -> Outcome:
        room = await self._room(rec.chat_room_id)
        data = remap(rec.model_dump(), self.ids)
        row = RoomTask(
            id=new_id(),
            room_id=room.id,
            number=rec.number,
            subject=rec.subject,
            detail=rec.detail,
            state=rec.state[:12],
            overall_status=rec.overall_status[:12],
            superseded_by_id=self.ids.get(str(data.get("superseded_by_id") or "")),
            created_by=data["created_by"],
            started_at=instant(data["started_at"]) if data.get("started_at") else None,
            completed_at=instant(data["completed_at"]) if data.get("completed_at") else None,
            created_at=instant(rec.inserted_at),
            updated_at=instant(rec.updated_at),
        )
        self.session.add(row)
        await self.session.flush()
        for work in data["assignments"]:
            who = work.get("assignee") or {}
            self.session.add(
                TaskAssignee(
                    task_id=row.id,
                    assignee_id=str(who.get("id", "")),
                    assignee=who,
                    status=str(work.get("status", "pending"))[:12],
                    active_form=str(work.get("active_form") or ""),
                    linked_native_id=str(work.get("linked_native_id") or ""),
                    updated_at=instant(work.get("updated_at")),
                )
            )
        for event in data["history"]:
            self.session.add(_audit(TaskHistory, event, task_id=row.id))
        self.keep("task", rec.id, row.id)
        return Outcome(row.id, True)

    async def board(self, rec: BoardRecord) -> Outcome:
        room = await self._room(rec.id)
        data = remap(rec.model_dump(), self.ids)
        nobody = {"id": self.admin.id, "name": self.admin.name, "type": "User"}
        self.session.add(
            RoomBoard(
                room_id=room.id,
                goal_title=rec.goal_title,
                goal_summary=rec.goal_summary,
                created_by=data.get("created_by") or nobody,
                updated_by=data.get("updated_by") or data.get("created_by") or nobody,
                created_at=instant(rec.inserted_at),
                updated_at=instant(rec.updated_at),
            )
        )
        for event in data["history"]:
            self.session.add(_audit(BoardHistory, event, room_id=room.id))
        self.keep("board", rec.id, room.id)
        return Outcome(room.id, True)

    # -- messages ----------------------------------------------------------------------------

    async def messages(self, recs: list[MessageRecord]) -> list[Outcome]:
        """A batch of messages, with the (processed) deliveries of their agent mentions."""
        made = await write_messages(self.session, self.ids, recs)
        for rec, target in zip(recs, made, strict=True):
            self.keep("message", rec.id, target)
        return [Outcome(target, True) for target in made]

    # -- contacts ----------------------------------------------------------------------------

    async def contact(self, rec: ContactRecord) -> Outcome:
        owner = await self._party(self.ids.get(rec.owner_id, ""))
        other = await self._party(self.ids.get(rec.id, "")) or await self._by_handle(rec.handle)
        source = rec.key()
        if owner is None or other is None:
            self.keep("contact", source, "")
            return Outcome(None, False, note=f"skipped: @{rec.handle} is not on this deployment")
        made = False
        for a, b in ((owner, other), (other, owner)):
            edge = await self.session.scalar(
                select(Contact.id).where(Contact.owner_id == a[1], Contact.contact_id == b[1])
            )
            if edge is None:
                self.session.add(
                    Contact(owner_id=a[1], owner_type=a[0], contact_id=b[1], contact_type=b[0])
                )
                made = True
        await self.session.flush()
        self.keep("contact", source, other[1])
        return Outcome(other[1], made)

    async def _by_handle(self, handle: str | None) -> tuple[str, str, str, str] | None:
        if not handle:
            return None
        clean = handle.strip().lower().removeprefix("@")
        found = await self.session.scalar(select(User.id).where(User.handle == clean))
        found = found or await self.session.scalar(
            select(Agent.id).where(Agent.handle == clean, Agent.deleted_at.is_(None))
        )
        return await self._party(found) if found else None


def _audit(model: Any, event: dict[str, Any], **owner: str) -> Any:
    return model(
        event=str(event.get("event", ""))[:20],
        actor=event.get("actor") or {},
        payload=event.get("payload") or {},
        at=instant(event.get("at")),
        **owner,
    )


def _agent_name(name: str) -> str:
    """A name our agents may have (3-24 letters, digits, spaces) as close to ``name`` as can be."""
    clean = " ".join(re.sub(r"[^A-Za-z0-9 ]+", " ", name).split())[:24].strip()
    return clean if len(clean) >= 3 else f"Agent {clean}".strip()[:24] or "Imported agent"


def _valid_handle(base: str) -> str:
    return base if len(base) >= 2 else f"{base}-imported"


def _unknown(what: str, source_id: str) -> ApiError:
    return Conflict(
        f"the {what} {source_id} was not imported yet: send the archive's records in order",
        code="import_out_of_order",
    )
