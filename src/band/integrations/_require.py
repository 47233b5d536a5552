"""One-line install hints for the integrations' optional extras."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["install_hint", "require_module"]


def install_hint(what: str, extra: str) -> str:
    """``"<what> needs pip install 'openband[<extra>]'"``."""
    return f"{what} needs its extra: pip install 'openband[{extra}]'"


def require_module(module: str, *, what: str, extra: str) -> ModuleType:
    """Import ``module``, or raise ImportError naming the extra that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(install_hint(what, extra)) from exc
