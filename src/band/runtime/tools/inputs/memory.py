"""Input models of the memory tools (agent side)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import ToolInput as _ToolInput

__all__ = [
    "ArchiveMemoryInput",
    "GetMemoryInput",
    "ListMemoriesInput",
    "StoreMemoryInput",
    "SupersedeMemoryInput",
]


class _MemoryIdInput(_ToolInput):
    """An input naming one memory."""

    memory_id: str = Field(description="The memory id.")


class ListMemoriesInput(_ToolInput):
    """List the memories you can read, optionally filtered."""

    subject_id: str | None = Field(default=None, description="Only memories about this subject.")
    scope: Literal["agent", "subject", "organization", "all"] | None = Field(
        default=None, description="Scope filter."
    )
    system: Literal["sensory", "working", "long_term"] | None = Field(
        default=None, description="Memory system filter."
    )
    type: str | None = Field(default=None, description="Memory type filter.")
    segment: Literal["user", "agent", "tool", "guideline"] | None = Field(
        default=None, description="Segment filter."
    )
    content_query: str | None = Field(default=None, description="Text to search for.")
    page_size: int = Field(default=50, ge=1, le=50, description="Entries per page.")
    status: str | None = Field(default=None, description="Status filter (e.g. active).")


class StoreMemoryInput(_ToolInput):
    """Store a memory for later turns.

    Subject-scoped memories need the subject's real id (from band_get_participants or
    band_lookup_peers).
    """

    content: str = Field(description="What to remember.")
    system: Literal["sensory", "working", "long_term"] = Field(description="Memory system.")
    type: Literal["iconic", "echoic", "haptic", "episodic", "semantic", "procedural"] = Field(
        description="Memory type (sensory: iconic/echoic/haptic; otherwise episodic, "
        "semantic or procedural)."
    )
    segment: Literal["user", "agent", "tool", "guideline"] = Field(description="Segment.")
    thought: str = Field(description="Why this is worth remembering.")
    scope: Literal["agent", "subject", "organization"] = Field(description="Who it is about.")
    subject_id: str | None = Field(default=None, description="Subject id for subject scope.")
    metadata: dict[str, Any] | None = Field(default=None, description="Optional data.")


class GetMemoryInput(_MemoryIdInput):
    """Read one memory by id."""


class SupersedeMemoryInput(_MemoryIdInput):
    """Mark a memory as outdated (soft delete) when newer knowledge replaces it."""


class ArchiveMemoryInput(_MemoryIdInput):
    """Archive a memory: hidden from listings but kept."""
