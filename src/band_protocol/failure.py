"""``AgentFailure``: a failure an agent reports to its room, with the provider that failed."""

from __future__ import annotations

from typing import Any

__all__ = ["AgentFailure"]


class AgentFailure:
    """A provider failure to show in the room: ``AgentFailure(provider, message, code, detail)``.

    Immutable; compared by identity. ``to_dict()`` is the shape stored in an error event's
    ``metadata["failure"]``.
    """

    __slots__ = ("_code", "_detail", "_message", "_provider")

    def __init__(
        self, provider: str, message: str, code: str | None = None, detail: Any = None
    ) -> None:
        if not isinstance(provider, str):
            raise TypeError("provider must be a str")
        if not isinstance(message, str):
            raise TypeError("message must be a str")
        if code is not None and not isinstance(code, str):
            raise TypeError("code must be a str or None")
        self._provider = provider
        self._message = message
        self._code = code
        self._detail = detail

    @property
    def provider(self) -> str:
        return self._provider

    @property
    def message(self) -> str:
        return self._message

    @property
    def code(self) -> str | None:
        return self._code

    @property
    def detail(self) -> Any:
        return self._detail

    def to_dict(self) -> dict[str, Any]:
        """``{"provider", "code", "message", "detail"}``."""
        return {
            "provider": self._provider,
            "code": self._code,
            "message": self._message,
            "detail": self._detail,
        }

    def to_extension_data(self) -> dict[str, Any]:
        """The failure keyed for protocol extensions: ``{"band.ai/failure": to_dict()}``."""
        return {"band.ai/failure": self.to_dict()}

    def __repr__(self) -> str:
        return (
            f"AgentFailure(provider={self._provider!r}, message={self._message!r}, "
            f"code={self._code!r})"
        )
