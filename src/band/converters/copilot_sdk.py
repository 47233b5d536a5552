"""The history converter of ``CopilotSDKAdapter``, at band-sdk's module path.

It reads the room's Copilot session id from the adapter's own ``task`` events (metadata key
``copilot_session_id``) and the room's text messages as a transcript, injected into a new session
when the saved one cannot be resumed. The state is :class:`CodingHistory` (``session_id``,
``transcript``), shared by every coding adapter.
"""

from __future__ import annotations

from band.adapters._coding.history import CodingHistory, CodingHistoryConverter

__all__ = ["SESSION_ID_METADATA_KEY", "CopilotSDKHistoryConverter", "CopilotSDKSessionState"]

SESSION_ID_METADATA_KEY = "copilot_session_id"
CopilotSDKSessionState = CodingHistory


class CopilotSDKHistoryConverter(CodingHistoryConverter):
    """:class:`CodingHistoryConverter` reading ``copilot_session_id``."""

    def __init__(self, agent_name: str = "") -> None:
        super().__init__(SESSION_ID_METADATA_KEY, agent_name)
