"""Settings of the A2A adapter and the session state it keeps in the room's history."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from band.core.adapterconfig import BaseAdapterConfig

__all__ = ["A2AAdapterConfig", "A2AAuth", "A2ASessionState"]


class A2AAuth(BaseModel):
    """Credentials sent with every request to the remote agent (each optional, combinable).

    ``api_key`` goes in ``X-API-Key``, ``bearer_token`` in ``Authorization: Bearer``,
    ``headers`` as given.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_key: str | None = Field(default=None, repr=False)
    bearer_token: str | None = Field(default=None, repr=False)
    headers: dict[str, str] = Field(default_factory=dict)

    def to_headers(self) -> dict[str, str]:
        """The HTTP headers these credentials add."""
        result = dict(self.headers)
        if self.api_key:
            result["X-API-Key"] = self.api_key
        if self.bearer_token:
            result["Authorization"] = f"Bearer {self.bearer_token}"
        return result


class A2AAdapterConfig(BaseAdapterConfig):
    """Which remote A2A agent a Band agent is, and how to talk to it.

    ``remote_url``: the agent's base URL (its card is read from
    ``/.well-known/agent-card.json``). ``streaming``: use ``message/stream`` when the card
    offers it; without streaming a new task's first event is its final one, so a STOP
    cannot cancel it.
    """

    remote_url: str
    auth: A2AAuth | None = None
    streaming: bool = True


@dataclass
class A2ASessionState:
    """The A2A conversation a room maps to, read back from the room's ``task`` events.

    ``task_state`` is the protobuf enum name (``TASK_STATE_INPUT_REQUIRED``); history
    written by 0.x-era adapters may hold ``input-required`` instead.
    """

    context_id: str | None = None
    task_id: str | None = None
    task_state: str | None = None
