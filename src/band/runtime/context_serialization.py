"""``context_item_to_dict``: one room-context message (a model or a dict) as a plain dict."""

from __future__ import annotations

from typing import Any

from band.core.types import metadata_to_dict

__all__ = ["context_item_to_dict"]


def _get(item: Any, name: str, default: Any = None) -> Any:
    if isinstance(item, dict):
        return item.get(name, default)
    return getattr(item, name, default)


def context_item_to_dict(item: Any) -> dict[str, Any]:
    """``id``, ``content``, sender fields (name falls back to ``name``), ``message_type``,
    ``metadata`` as a dict, and ``inserted_at`` (also as ``created_at``)."""
    inserted = _get(item, "inserted_at")
    return {
        "id": _get(item, "id"),
        "content": _get(item, "content", ""),
        "sender_id": _get(item, "sender_id", ""),
        "sender_type": _get(item, "sender_type", ""),
        "sender_name": _get(item, "sender_name") or _get(item, "name"),
        "message_type": _get(item, "message_type", "text"),
        "metadata": metadata_to_dict(_get(item, "metadata", {}) or {}),
        "inserted_at": inserted,
        "created_at": inserted,
    }
