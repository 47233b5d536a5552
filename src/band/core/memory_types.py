"""The memory vocabulary: systems, types, segments, scopes and statuses, with their rules.

A memory's ``type`` must belong to its ``system`` (sensory holds iconic, echoic and haptic;
working and long-term hold episodic, semantic and procedural). The helpers write the field
descriptions and the messages an agent reads when the platform refuses a scope.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "MEMORY_SYSTEM_TYPE_MAP",
    "ORGANIZATION_SCOPE_REJECTED_CODE",
    "MemoryListScope",
    "MemorySegment",
    "MemoryStatus",
    "MemoryStoreScope",
    "MemorySystem",
    "MemoryType",
    "enum_values",
    "is_organization_scope_rejection",
    "memory_list_scope_field_description",
    "memory_store_scope_field_description",
    "memory_type_field_description",
    "organization_scope_rejected_message",
    "validate_subject_scope",
]


class MemorySystem(StrEnum):
    """How long a memory lives; decides which types it may have."""

    SENSORY = "sensory"
    WORKING = "working"
    LONG_TERM = "long_term"


class MemoryType(StrEnum):
    """What kind of thing a memory records."""

    ICONIC = "iconic"
    ECHOIC = "echoic"
    HAPTIC = "haptic"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"


class MemorySegment(StrEnum):
    """What a memory is about."""

    USER = "user"
    AGENT = "agent"
    TOOL = "tool"
    GUIDELINE = "guideline"


class MemoryStoreScope(StrEnum):
    """Who may read a stored memory: the agent, about one subject, or the organization."""

    AGENT = "agent"
    SUBJECT = "subject"
    ORGANIZATION = "organization"


class MemoryListScope(StrEnum):
    """The scope filter of a memory listing (``all``: no filter)."""

    AGENT = "agent"
    SUBJECT = "subject"
    ORGANIZATION = "organization"
    ALL = "all"


class MemoryStatus(StrEnum):
    """A memory's lifecycle state, and the listing filter (``all``: any)."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    ALL = "all"


def enum_values(enum_cls: type[StrEnum]) -> tuple[str, ...]:
    """The values of a string enum, in declaration order."""
    return tuple(member.value for member in enum_cls)


_SENSES = (MemoryType.ICONIC.value, MemoryType.ECHOIC.value, MemoryType.HAPTIC.value)
_RECALLED = (MemoryType.EPISODIC.value, MemoryType.SEMANTIC.value, MemoryType.PROCEDURAL.value)
MEMORY_SYSTEM_TYPE_MAP: dict[str, tuple[str, ...]] = {
    MemorySystem.SENSORY.value: _SENSES,
    MemorySystem.WORKING.value: _RECALLED,
    MemorySystem.LONG_TERM.value: _RECALLED,
}
ORGANIZATION_SCOPE_REJECTED_CODE = "org_scope_requires_organization"


def validate_subject_scope(scope: MemoryStoreScope, subject_id: str | None) -> None:
    """A subject-scoped memory names its subject: raise ``ValueError`` when it does not."""
    if scope == MemoryStoreScope.SUBJECT and subject_id is None:
        raise ValueError(
            f'scope="{MemoryStoreScope.SUBJECT.value}" needs subject_id, the UUID of the '
            "person or agent the memory is about, and none was given. Without a real "
            f'subject UUID, store it with scope="{MemoryStoreScope.AGENT.value}" and no '
            "subject_id; never make a UUID up."
        )


def memory_type_field_description() -> str:
    """The ``type`` field's description: which types each system accepts."""
    by_types: dict[tuple[str, ...], list[str]] = {}
    for system in MemorySystem:
        by_types.setdefault(MEMORY_SYSTEM_TYPE_MAP[system.value], []).append(system.value)
    pairs = ", ".join(f"{'|'.join(s)}={'/'.join(t)}" for t, s in by_types.items())
    return f"Memory type - must match the chosen system: {pairs}"


def _organization_note(agent: str, organization: str) -> str:
    return (
        f'"{organization}" requires the agent\'s owner to belong to an organization; '
        f'"{agent}" (private to this agent) works regardless.'
    )


def memory_store_scope_field_description() -> str:
    """The ``scope`` field's description when storing a memory."""
    return "Visibility scope. " + _organization_note(
        MemoryStoreScope.AGENT.value, MemoryStoreScope.ORGANIZATION.value
    )


def memory_list_scope_field_description() -> str:
    """The ``scope`` field's description when listing memories."""
    return "Filter by scope. " + _organization_note(
        MemoryListScope.AGENT.value, MemoryListScope.ORGANIZATION.value
    )


def is_organization_scope_rejection(error_body: object) -> bool:
    """Whether a 422 body is the platform refusing an organization scope (no organization)."""
    if not isinstance(error_body, dict):
        return False
    error = error_body.get("error")
    return isinstance(error, dict) and error.get("code") == ORGANIZATION_SCOPE_REJECTED_CODE


def organization_scope_rejected_message(agent_value: str) -> str:
    """What an agent reads after that refusal: retry with its own scope."""
    return (
        f'scope="{MemoryStoreScope.ORGANIZATION.value}" was refused: the agent\'s owner '
        f'belongs to no organization. Retry with scope="{agent_value}".'
    )
