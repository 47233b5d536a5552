"""How a platform handle is written: with its ``@``."""

from __future__ import annotations

__all__ = ["normalize_handle"]


def normalize_handle(handle: str | None) -> str | None:
    """``@handle`` for a non-empty handle (the ``@`` added when missing), else None."""
    if not handle:
        return None
    return handle if handle.startswith("@") else f"@{handle}"
