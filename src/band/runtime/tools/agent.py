"""``AgentTools`` and the rules it shares with adapters: mentions, participants, chat pages.

``AgentTools`` (``agent_tools``) is the room-bound tool surface an adapter receives; the
helpers here resolve identifiers the way it does and word its mention errors, so an adapter
that builds its own tools answers alike.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from enum import StrEnum
from typing import Any, Literal, Protocol, TypedDict

from ._workspace_tools import (
    DEFAULT_FILE_CAPTION,
    FILE_UNAVAILABLE_MESSAGE,
    FILENAME_HEADER_SAFE_PATTERN,
    MAX_INLINE_IMAGE_BYTES,
    MAX_INLINE_TEXT_BYTES,
    MAX_SEND_CONTENT_BYTES,
    PREVIEWABLE_IMAGE_CONTENT_TYPES,
)
from .agent_tools import AgentTools
from .roster import (
    MISSING_MENTIONS_ERROR,
    append_mention_handles_hint,
    available_mention_handles,
    entity_field,
    strip_handle_prefix,
)

__all__ = [
    "CHAT_PAGE_SIZE",
    "DEFAULT_FILE_CAPTION",
    "FILENAME_HEADER_SAFE_PATTERN",
    "FILE_UNAVAILABLE_MESSAGE",
    "MAX_CHAT_PAGES",
    "MAX_INLINE_IMAGE_BYTES",
    "MAX_INLINE_TEXT_BYTES",
    "MAX_SEND_CONTENT_BYTES",
    "MISSING_MENTIONS_ERROR",
    "PREVIEWABLE_IMAGE_CONTENT_TYPES",
    "AgentTools",
    "AttachmentCache",
    "ParticipantAddResult",
    "ParticipantAddStatus",
    "ParticipantRemoveResult",
    "append_available_mention_handles",
    "append_mention_handles_hint",
    "available_mention_handles",
    "iter_chat_pages",
    "matches_identifier",
    "strip_handle_prefix",
]

logger = logging.getLogger(__name__)
CHAT_PAGE_SIZE = 100
MAX_CHAT_PAGES = 50  # 5,000 rooms: a listing that never ends stays a bounded read


async def iter_chat_pages(fetch: Callable[[int, int], Awaitable[Any]]) -> AsyncIterator[Any]:
    """Each page of a chat listing (``fetch(page, page_size)``), until its last page."""
    for page in range(1, MAX_CHAT_PAGES + 1):
        response = await fetch(page, CHAT_PAGE_SIZE)
        yield response
        metadata = getattr(response, "metadata", None)
        if isinstance(response, dict):
            metadata = response.get("metadata")
        total = metadata.get("total_pages") if isinstance(metadata, dict) else None
        total = total if total is not None else getattr(metadata, "total_pages", None)
        if not total or page >= int(total):
            return
    logger.warning("Stopped listing chats at the %d page cap; some rooms were not read", page)


def matches_identifier(entity: dict[str, Any] | Any, identifier: str) -> bool:
    """Whether ``identifier`` is the entity's handle (``@`` optional), name or id (any case)."""
    handle = entity_field(entity, "handle")
    if handle and strip_handle_prefix(handle) == strip_handle_prefix(identifier):
        return True
    wanted = identifier.lower()
    return any(
        entity_field(entity, f).lower() == wanted for f in ("name", "id") if entity_field(entity, f)
    )


def append_available_mention_handles(
    error: str, participants: list[dict[str, Any] | Any], agent_id: str | None = None
) -> str:
    """``error`` with the room's mentionable handles appended (once)."""
    return append_mention_handles_hint(error, available_mention_handles(participants, agent_id))


class ParticipantAddStatus(StrEnum):
    """What ``band_add_participant`` did."""

    ADDED = "added"
    ALREADY_IN_ROOM = "already_in_room"


class ParticipantAddResult(TypedDict):
    """``band_add_participant``'s answer."""

    id: str
    name: str
    role: str
    status: str


class ParticipantRemoveResult(TypedDict):
    """``band_remove_participant``'s answer."""

    id: str
    name: str
    status: Literal["removed"]


class AttachmentCache(Protocol):
    """What a cache of room attachments offers (an ``async_lru``-style wrapper)."""

    async def __call__(self, room_id: str, rest: Any, file_id: str) -> Any: ...

    def cache_invalidate(self, *args: Any, **kwargs: Any) -> bool: ...

    def cache_contains(self, *args: Any, **kwargs: Any) -> bool: ...

    def cache_info(self) -> Any: ...

    def cache_parameters(self) -> Any: ...
