"""The Parlant tool entries of one adapter: Band's tools and its custom tools.

The tools themselves live in ``band.integrations.parlant`` (``bandtools``, ``customtools``),
which import Parlant; this module imports them only when the agent starts, so that the
adapter's module imports without Parlant as band-sdk's does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from band.core.types import AdapterFeatures
from band.integrations.parlant.customschema import check_parlant_custom_tools
from band.integrations.parlant.sessiontools import NO_SESSION_TOOLS_ERROR
from band.runtime.custom_tools import CustomToolDef

__all__ = ["NO_CONTEXT_ERROR", "build_band_tools", "build_custom_tools", "check_custom_tools"]

NO_CONTEXT_ERROR = NO_SESSION_TOOLS_ERROR


def build_band_tools(features: AdapterFeatures | None) -> list[Any]:
    """Fresh Parlant ``ToolEntry`` objects for the Band tools ``features`` offer."""
    from band.integrations.parlant.bandtool import build_band_tool
    from band.integrations.parlant.bandtools import band_tool_specs

    return [build_band_tool(spec) for spec in band_tool_specs(features)]


def build_custom_tools(tools: Sequence[CustomToolDef]) -> list[Any]:
    """Fresh Parlant ``ToolEntry`` objects for the adapter's custom tools."""
    from band.integrations.parlant.customtools import build_custom_tool

    return [build_custom_tool(tool) for tool in tools]


def check_custom_tools(tools: Sequence[CustomToolDef]) -> None:
    """Refuse names that shadow Band tools or repeat, and fields Parlant cannot be offered."""
    check_parlant_custom_tools(tools)
