"""``GatewayHistoryConverter``: the A2A contexts a gateway's room history maps to rooms."""

from __future__ import annotations

from typing import Any

from band.core.protocols import HistoryConverter

__all__ = ["GatewayHistoryConverter"]


class GatewayHistoryConverter(HistoryConverter[Any]):
    """Reads ``gateway_context_id`` / ``gateway_room_id`` from the gateway's ``task`` events,
    and which agents spoke in each room."""

    def convert(self, raw: list[dict[str, Any]]) -> Any:
        from band.integrations.a2a.gateway.types import GatewaySessionState

        state = GatewaySessionState()
        for item in raw:
            metadata = item.get("metadata") or {}
            room_id = item.get("room_id") or item.get("chat_room_id")
            if isinstance(metadata, dict) and "gateway_context_id" in metadata:
                room = metadata.get("gateway_room_id") or room_id
                if room:
                    state.context_to_room[str(metadata["gateway_context_id"])] = str(room)
            sender = item.get("sender_id")
            if room_id and sender and str(item.get("sender_type", "")).lower() == "agent":
                state.room_participants.setdefault(str(room_id), set()).add(str(sender))
        return state
