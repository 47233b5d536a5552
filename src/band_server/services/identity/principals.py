"""Who is calling: a person or an agent, resolved from an API key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PrincipalKind = Literal["user", "agent"]


@dataclass(frozen=True)
class Principal:
    kind: PrincipalKind
    id: str
    name: str
    handle: str
    owner_id: str | None = None  # for agents: the person who owns it

    @property
    def sender_type(self) -> Literal["User", "Agent"]:
        return "Agent" if self.kind == "agent" else "User"

    @property
    def is_agent(self) -> bool:
        return self.kind == "agent"
