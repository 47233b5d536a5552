"""Agents and people as the wire shows them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import RequestModel, WireModel


class AgentMe(WireModel):
    """``GET /agent/me``: the calling agent's identity."""

    id: str
    name: str
    handle: str
    description: str | None = None
    owner_uuid: str
    feature_flags: dict[str, bool] = {}
    inserted_at: str
    updated_at: str


class AgentInfo(WireModel):
    """An agent as its owner sees it on the human surface."""

    id: str
    name: str
    handle: str
    description: str | None = None
    owner_uuid: str
    owner_id: str  # the same person as ``owner_uuid``; band-client-rest reads this name
    is_external: bool = True  # every agent here runs its own loop and connects in
    listed_in_directory: bool = False
    online: bool = False
    inserted_at: str
    updated_at: str


class AgentDeleted(AgentInfo):
    """What ``DELETE /me/agents/{id}`` answers: the agent as it was, and what went with it."""

    deleted: bool = True
    executions_deleted: int = 0


class AgentCredentials(WireModel):
    api_key: str


class AgentRegistered(WireModel):
    agent: AgentInfo
    credentials: AgentCredentials


class AgentRegisterFields(RequestModel):
    name: str = Field(min_length=3, max_length=24, pattern=r"^[A-Za-z0-9 ]+$")
    description: str = Field(min_length=10, max_length=2000)


class AgentRegisterBody(RequestModel):
    agent: AgentRegisterFields


Role = Literal["user", "business", "admin"]


class UserProfile(WireModel):
    id: str
    name: str
    handle: str
    email: str
    role: Role
    first_name: str | None = None
    last_name: str | None = None
    listed_in_directory: bool = False
    inserted_at: str
    updated_at: str


class ProfileUpdateFields(RequestModel):
    name: str | None = Field(default=None, min_length=1, max_length=80)
    first_name: str | None = Field(default=None, max_length=80)
    last_name: str | None = Field(default=None, max_length=80)


class ProfileUpdateBody(RequestModel):
    user: ProfileUpdateFields


def dump(model: WireModel) -> dict[str, Any]:
    return model.model_dump(mode="json")
