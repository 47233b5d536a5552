"""``feature_kwargs``: an ``AdapterFeatures`` as the keywords every adapter constructor takes."""

from __future__ import annotations

from typing import Any

from band.core.types import AdapterFeatures

__all__ = ["feature_kwargs"]


def feature_kwargs(features: AdapterFeatures | None) -> dict[str, Any]:
    """``emit=``, ``capabilities=``... of ``features``; None gives none (the adapter's defaults)."""
    if features is None:
        return {}
    return {
        "emit": features.emit,
        "capabilities": features.capabilities,
        "include_tools": features.include_tools,
        "exclude_tools": features.exclude_tools,
        "include_categories": features.include_categories,
    }
