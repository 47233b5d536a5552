"""``WirePayload``: the base of the typed socket payloads (unknown keys are kept)."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict

from band_protocol.validation import validate_event_payload

__all__ = ["WirePayload"]


class WirePayload(BaseModel):
    """A pushed event's payload; ``from_wire`` checks it against the wire rules first."""

    model_config = ConfigDict(extra="allow")

    @classmethod
    def from_wire(cls, event: str, payload: dict[str, Any]) -> Self:
        """The payload of ``event``, validated by the wire rules then by this model.

        Raises ``ValueError`` (with ``.issues`` when the wire rules refused it).
        """
        return cls.model_validate(validate_event_payload(event, payload))
