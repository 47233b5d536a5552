"""Who is calling: a person or an agent, resolved from an API key."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

PrincipalKind = Literal["user", "agent"]


@dataclass(frozen=True)
class Principal:
    kind: PrincipalKind
    id: str
    name: str
    handle: str
    owner_id: str | None = None  # for agents: the person who owns it
    # Of ``kind``, set once when made (a principal is kept by the key cache and read on every
    # post several times: a property was a call each time); not compared, not shown.
    is_agent: bool = field(init=False, compare=False, repr=False)
    sender_type: Literal["User", "Agent"] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        agent = self.kind == "agent"
        object.__setattr__(self, "is_agent", agent)
        object.__setattr__(self, "sender_type", "Agent" if agent else "User")
