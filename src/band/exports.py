"""``lazy_exports``: a package's ``__all__`` and PEP 562 ``__getattr__`` from its submodules.

    __all__, __getattr__ = lazy_exports(__name__, anthropic=["AnthropicAdapter"])

A submodule is imported the first time one of its names is read, so importing the package
never needs an optional extra; the name is then bound in the package.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from band._lazy import lazy_exports as _lazy

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, **module_exports: Sequence[str]
) -> tuple[list[str], Callable[[str], Any]]:
    """``(__all__, __getattr__)``: each keyword is a submodule and the names it owns."""
    owners = {
        name: f"{package}.{module}" for module, names in module_exports.items() for name in names
    }
    getattr_, _dir = _lazy(package, owners, vars(sys.modules[package]))
    return list(owners), getattr_
