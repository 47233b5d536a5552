"""Importing Parlant on demand, with a one-line hint when the extra is missing."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

__all__ = ["INSTALL_HINT", "parlant_available", "require_parlant_sdk"]

INSTALL_HINT = "ParlantAdapter needs Parlant: pip install 'openband[parlant]'"


def parlant_available() -> bool:
    try:
        return importlib.util.find_spec("parlant.sdk") is not None
    except ImportError:  # a directory named parlant on sys.path, without the real package
        return False


def require_parlant_sdk() -> ModuleType:
    """``parlant.sdk``, or ImportError with the install command."""
    try:
        return importlib.import_module("parlant.sdk")
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] != "parlant":
            raise
        raise ImportError(INSTALL_HINT) from None
