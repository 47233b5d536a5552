"""What ``band-kit provision`` tells its user when registration fails or times out.

Pure wording, apart from the I/O that finds out what happened: a 403 is the plan's agent cap;
a 422 on the name alone (or with no details) is a name already taken; other field errors are
listed; a timeout is reported by what a lookup of the agent's name found afterwards.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from band.client.rest import ApiError

# A name collision reads "name" (the field's own check) or "/agent/name" (the schema's).
NAME_FIELDS = frozenset({"name", "/agent/name"})


class RegistrationTimeoutOutcome(StrEnum):
    """What looking the agent up by name found after a registration timed out."""

    CONFIRMED_ABSENT = "confirmed_absent"
    CONFIRMED_PRESENT = "confirmed_present"
    UNKNOWN = "unknown"


def _field_errors(body: Any) -> dict[str, Any]:
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    return details if isinstance(details, dict) else {}


def _messages(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def describe_register_error(err: ApiError) -> str:
    """One sentence for a refused registration."""
    if err.status_code == 403:
        return "Plan agent cap reached — cannot register another external agent."
    if err.status_code == 422:
        others = {k: v for k, v in _field_errors(err.body).items() if k not in NAME_FIELDS}
        if others:
            listed = "; ".join(f"{field}: {_messages(said)}" for field, said in others.items())
            return f"Failed to register agent: {listed}"
        return (
            "An agent with this name already exists. Re-registration semantics for a "
            "re-created sandbox (new identity vs. adopt-existing) are not decided yet. Pick a "
            "new --agent-name or --name to register a distinct agent."
        )
    error = err.body.get("error") if isinstance(err.body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return f"Failed to register agent: {message or f'HTTP {err.status_code}'}"


def describe_registration_timeout(
    outcome: RegistrationTimeoutOutcome, *, agent_name: str, agent_id: str | None, timeout: int
) -> str:
    """One paragraph for a registration that timed out, by what the lookup found."""
    base = f"registration timed out after {timeout}s"
    if outcome is RegistrationTimeoutOutcome.CONFIRMED_ABSENT:
        return f"{base}; confirmed no agent named {agent_name!r} was registered -- safe to retry."
    if outcome is RegistrationTimeoutOutcome.CONFIRMED_PRESENT:
        return (
            f"{base}, but agent {agent_name!r} (id={agent_id}) was registered anyway before "
            "the response arrived. Its key was shown exactly once and cannot be retrieved -- "
            "delete the orphaned agent and retry with a new --agent-name."
        )
    return (
        f"{base} and its outcome could not be confirmed. The platform may have registered "
        f"{agent_name!r} and minted its key before the response was lost -- that key cannot "
        f"be retrieved again. Check the platform for an agent named {agent_name!r} first."
    )
