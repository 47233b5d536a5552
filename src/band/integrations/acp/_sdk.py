"""The ``acp`` package (extra ``acp``), imported with our install hint when it is missing."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["ACP_INSTALL_HINT", "require_acp"]

ACP_INSTALL_HINT = "the ACP client needs the ACP SDK: pip install 'openband[acp]'"


def require_acp(module: str = "acp") -> ModuleType:
    """``acp`` (or one of its modules); ImportError naming the extra when it is absent."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(ACP_INSTALL_HINT) from None
