"""The records of a Band archive: one pydantic model per kind, one JSON Lines member each.

Shared by the SDK (``band export`` writes them, ``band import`` sends them) and the platform
(its import endpoint checks them).

A record is what the platform's REST API said about a thing (a room, a message, a task...),
plus the few fields an import needs (``room_id`` on a participant, ``owner_handle`` on an
agent). Unknown fields are kept, so a platform that says more loses nothing in the archive.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from ._base import RequestModel, WireModel

__all__ = [
    "KINDS",
    "MAX_BATCH",
    "MEMBERS",
    "AgentRecord",
    "ArchiveRecord",
    "BoardRecord",
    "ContactRecord",
    "FileRecord",
    "ImportBatch",
    "ImportRecordsBody",
    "ImportRunView",
    "ImportStartBody",
    "ImportedRecord",
    "Kind",
    "MessageRecord",
    "ParticipantRecord",
    "PersonRecord",
    "RecordKind",
    "RoomRecord",
    "TaskRecord",
]

SHA256 = r"^[0-9a-f]{64}$"


class ArchiveRecord(BaseModel):
    """A record: the required fields checked, any other field kept as it came."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1, max_length=200)

    def key(self) -> str:
        """What names this record among its kind (a pair of ids for an edge)."""
        return self.id

    def source_ids(self) -> dict[str, str]:
        """Ids this record points at, by what they name (checked against the archive)."""
        return {}


class PersonRecord(ArchiveRecord):
    name: str
    handle: str = Field(min_length=1)
    email: str | None = None
    role: str | None = None


class AgentRecord(ArchiveRecord):
    name: str
    handle: str = Field(min_length=1)
    description: str | None = None
    owner_id: str | None = None
    owner_handle: str | None = None
    tags: list[str] = []


class RoomRecord(ArchiveRecord):
    title: str | None = None
    task_id: str | None = None
    owner_id: str | None = None
    inserted_at: str
    updated_at: str


class ParticipantRecord(ArchiveRecord):
    room_id: str
    type: Literal["User", "Agent"]
    role: str = "member"
    status: str = "active"
    name: str | None = None
    handle: str | None = None

    def key(self) -> str:
        return f"{self.room_id}:{self.id}"

    def source_ids(self) -> dict[str, str]:
        return {"room": self.room_id, "party": self.id}


class FileRecord(ArchiveRecord):
    room_id: str
    name: str = Field(min_length=1)
    content_type: str
    bytes: int = Field(ge=0)
    sha256: str = Field(pattern=SHA256)
    uploader_id: str | None = None

    def source_ids(self) -> dict[str, str]:
        return {"room": self.room_id}


class MessageRecord(ArchiveRecord):
    chat_room_id: str
    seq: int = Field(ge=1)
    content: str
    message_type: str = Field(min_length=1)
    sender_id: str
    sender_type: Literal["User", "Agent", "System"]
    sender_name: str | None = None
    metadata: dict[str, Any] = {}
    attachments: list[dict[str, Any]] = []
    inserted_at: str
    updated_at: str

    def source_ids(self) -> dict[str, str]:
        refs = {"room": self.chat_room_id}
        if self.sender_type != "System":
            refs["sender"] = self.sender_id
        return refs


class TaskRecord(ArchiveRecord):
    chat_room_id: str
    number: int = Field(ge=1)
    subject: str
    detail: str = ""
    state: str
    overall_status: str
    created_by: dict[str, Any]
    assignments: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    inserted_at: str
    updated_at: str

    def source_ids(self) -> dict[str, str]:
        return {"room": self.chat_room_id}


class BoardRecord(ArchiveRecord):
    """A room's goal; ``id`` is the room's id (one board per room)."""

    goal_title: str | None = None
    goal_summary: str | None = None
    created_by: dict[str, Any] | None = None
    updated_by: dict[str, Any] | None = None
    history: list[dict[str, Any]] = []
    inserted_at: str | None = None
    updated_at: str | None = None

    def source_ids(self) -> dict[str, str]:
        return {"room": self.id}


class ContactRecord(ArchiveRecord):
    """One contact edge: ``owner_id`` has ``id`` (a person or agent) in their contacts."""

    owner_id: str
    type: Literal["User", "Agent"]
    handle: str | None = None
    name: str | None = None

    def key(self) -> str:
        return f"{self.owner_id}:{self.id}"

    def source_ids(self) -> dict[str, str]:
        return {"owner": self.owner_id}


Kind = Literal[
    "person", "agent", "room", "participant", "file", "task", "board", "message", "contact"
]
# In the order an import applies them: what a record points at comes before it.
MEMBERS: dict[str, tuple[str, type[ArchiveRecord]]] = {
    "person": ("people.jsonl", PersonRecord),
    "agent": ("agents.jsonl", AgentRecord),
    "room": ("rooms.jsonl", RoomRecord),
    "participant": ("participants.jsonl", ParticipantRecord),
    "file": ("files.jsonl", FileRecord),
    "task": ("tasks.jsonl", TaskRecord),
    "board": ("boards.jsonl", BoardRecord),
    "message": ("messages.jsonl", MessageRecord),
    "contact": ("contacts.jsonl", ContactRecord),
}
KINDS: tuple[str, ...] = tuple(MEMBERS)
MAX_BATCH = 500  # records in one import request


# -- the import endpoint's bodies and answers (``/api/v1/admin/imports``) --------------------

RecordKind = Literal[
    "person", "agent", "room", "participant", "task", "board", "message", "contact"
]


class ImportStartBody(RequestModel):
    """Start (or find again) the import of one archive, named by its manifest's id."""

    archive_id: str = Field(min_length=1, max_length=64)
    source: dict[str, Any] = {}
    expected: dict[str, Annotated[StrictInt, Field(ge=0)]] = {}


class ImportRecordsBody(RequestModel):
    """One batch of records of one kind, in archive order (files go up one by one)."""

    kind: RecordKind
    records: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_BATCH)


class ImportRunView(WireModel):
    id: str
    archive_id: str
    status: Literal["running", "finished"]
    source: dict[str, Any] = {}
    expected: dict[str, int] = {}
    applied: dict[str, int] = {}
    inserted_at: str
    finished_at: str | None = None


class ImportedRecord(WireModel):
    """What one record became: ``created`` false when mapped (by handle) or already done;
    ``api_key`` (shown once) for a person or agent made by this request."""

    kind: str
    source_id: str
    target_id: str | None
    created: bool
    api_key: str | None = None
    note: str | None = None


class ImportBatch(WireModel):
    records: list[ImportedRecord]
    applied: dict[str, int]
