"""Parlant's tool types for the modules that need them, or our install hint on import."""

from __future__ import annotations

try:
    import parlant.sdk as p
    from parlant.core.tools import ToolContext, ToolParameterOptions, ToolResult
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    if exc.name is not None and exc.name.split(".")[0] != "parlant":
        raise
    raise ImportError(
        "Band's Parlant tools need Parlant: pip install 'openband[parlant]'"
    ) from None

__all__ = ["ToolContext", "ToolParameterOptions", "ToolResult", "p"]
