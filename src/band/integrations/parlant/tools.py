"""Band's tools as Parlant tools, for a Parlant agent of your own.

``create_parlant_tools(features, custom_tools=...)`` returns Parlant ``ToolEntry`` objects:
the Band tools ``features`` allow, then the custom tools. Attach them to guidelines; every call
acts on the room whose turn is running (bind it with ``sessiontools.bound_session_tools``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from band.core.types import AdapterFeatures
from band.runtime.custom_tools import CustomToolDef

from .sessiontools import get_current_tools, get_session_tools, set_current_tools, set_session_tools

__all__ = [
    "create_parlant_tools",
    "get_current_tools",
    "get_session_tools",
    "set_current_tools",
    "set_session_tools",
]

logger = logging.getLogger(__name__)


def create_parlant_tools(
    features: AdapterFeatures | None = None, *, custom_tools: Sequence[CustomToolDef] = ()
) -> list[Any]:
    """The Parlant tool entries of ``features``' Band tools and of ``custom_tools``; an empty
    list (logged) where Parlant is not installed."""
    try:
        import parlant.sdk  # noqa: F401
    except ImportError:
        logger.warning("Parlant is not installed (pip install 'openband[parlant]'): no tools")
        return []
    from band.adapters.parlant.tools import build_band_tools, build_custom_tools, check_custom_tools

    check_custom_tools(custom_tools)
    return [*build_band_tools(features or AdapterFeatures()), *build_custom_tools(custom_tools)]
