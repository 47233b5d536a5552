"""``ParlantHistoryConverter``: room history as role/content/sender dicts."""

from __future__ import annotations

from typing import Any

__all__ = ["ParlantHistoryConverter"]


class ParlantHistoryConverter:
    """Text messages only; assistant turns keep their sender, others become ``[name]: text``."""

    def __init__(self) -> None:
        self.agent_name = ""

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name

    def convert(self, raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for item in raw:
            if (item.get("message_type") or "text") != "text":
                continue
            content = str(item.get("content") or "")
            if not content.strip():
                continue
            sender = str(item.get("sender_name") or item.get("sender_type") or "Unknown")
            sender_type = str(item.get("sender_type") or "")
            if item.get("role") == "assistant":
                out.append(
                    {
                        "role": "assistant",
                        "content": content,
                        "sender": sender,
                        "sender_type": sender_type,
                    }
                )
            else:
                out.append(
                    {
                        "role": "user",
                        "content": f"[{sender}]: {content}",
                        "sender": sender,
                        "sender_type": sender_type,
                    }
                )
        return out
