"""Background jobs as the wire shows them: bulk deletions of rooms and agents."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool

from ._base import RequestModel, WireModel

ItemErrorCode = Literal[
    "not_found", "forbidden", "execution_history_exists", "delete_failed", "not_attempted"
]


class BulkDeletionItemError(WireModel):
    code: ItemErrorCode
    message: str


class BulkDeletionItem(WireModel):
    id: str
    status: Literal["pending", "succeeded", "failed"]
    error: BulkDeletionItemError | None = None


class BulkDeletionJob(WireModel):
    id: str
    resource_type: Literal["chat", "agent"]
    status: Literal["queued", "processing", "completed", "failed"]
    force: bool
    total: int
    processed: int
    succeeded: int
    failed: int
    results: list[BulkDeletionItem]
    inserted_at: str
    started_at: str | None = None
    completed_at: str | None = None


class BulkDeleteChatsBody(RequestModel):
    ids: list[str] = Field(min_length=1, max_length=100)


class BulkDeleteAgentsBody(RequestModel):
    ids: list[str] = Field(min_length=1, max_length=100)
    force: StrictBool = False  # a JSON boolean: "true" as a string is refused
