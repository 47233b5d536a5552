"""The history converter of ``ACPClientAdapter`` and its profiles (Copilot, Cursor, OMP), at
band-sdk's module path.

It reads the room's ACP session id from the adapter's own ``task`` events (metadata key
``acp_client_session_id``) and the room's text messages as a transcript, injected into a new
session when the saved one cannot be resumed; its state is :class:`CodingHistory`, shared by
every coding adapter. :class:`ACPClientSessionState` is band-sdk's shape of the same facts
(``room_to_session``, ``replay_messages``); the adapter reads it too when handed one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from band.adapters._coding.history import CodingHistoryConverter

__all__ = ["SESSION_ID_METADATA_KEY", "ACPClientHistoryConverter", "ACPClientSessionState"]

SESSION_ID_METADATA_KEY = "acp_client_session_id"


@dataclass
class ACPClientSessionState:
    """Per room, the session to try to load (the agent must accept it: ``session/load``),
    and the room's transcript as ``[sender]: text`` lines for a session that cannot be."""

    room_to_session: dict[str, str] = field(default_factory=dict)
    replay_messages: list[str] = field(default_factory=list)


class ACPClientHistoryConverter(CodingHistoryConverter):
    """:class:`CodingHistoryConverter` reading ``acp_client_session_id``."""

    def __init__(self) -> None:
        super().__init__(SESSION_ID_METADATA_KEY)
