"""``AgentFailure``: a failure an agent reports to its room, with the provider that failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["AgentFailure"]


@dataclass(frozen=True, slots=True, eq=False)
class AgentFailure:
    """A provider failure to show in the room: ``AgentFailure(provider, message, code, detail)``.

    Immutable; compared by identity. ``to_dict()`` is the shape stored in an error event's
    ``metadata["failure"]``.
    """

    provider: str
    message: str
    code: str | None = None
    detail: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.provider, str):
            raise TypeError("provider must be a str")
        if not isinstance(self.message, str):
            raise TypeError("message must be a str")
        if self.code is not None and not isinstance(self.code, str):
            raise TypeError("code must be a str or None")

    def to_dict(self) -> dict[str, Any]:
        """``{"provider", "code", "message", "detail"}``."""
        return {
            "provider": self.provider,
            "code": self.code,
            "message": self.message,
            "detail": self.detail,
        }

    def to_extension_data(self) -> dict[str, Any]:
        """The failure keyed for protocol extensions: ``{"band.ai/failure": to_dict()}``."""
        return {"band.ai/failure": self.to_dict()}

    def __repr__(self) -> str:
        return (
            f"AgentFailure(provider={self.provider!r}, message={self.message!r}, "
            f"code={self.code!r})"
        )
