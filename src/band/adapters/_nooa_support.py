"""Why a NOOA module does not import here, said once for every module that needs NOOA.

NOOA (NVIDIA-labs Object Oriented Agents) runs on Python 3.12 and 3.13 only. On any other
interpreter a NOOA module fails as band-sdk's does without the extra: ``ModuleNotFoundError``
naming ``nooa`` (``exc.name``), with our install hint. On 3.12/3.13 it fails with an
``ImportError`` saying this build has no NOOA adapter yet.
"""

from __future__ import annotations

from typing import NoReturn

SUPPORTED = ((3, 12), (3, 13))
INSTALL_HINT = "pip install 'openband[nooa]'"


def refuse(module: str, version: tuple[int, ...]) -> NoReturn:
    """Raise the import error ``module`` fails with on the Python ``version`` given."""
    major, minor = version[0], version[1]
    if (major, minor) not in SUPPORTED:
        raise ModuleNotFoundError(
            f"{module} needs NOOA, which runs on Python 3.12 and 3.13 only (this is Python"
            f" {major}.{minor}); there: {INSTALL_HINT}",
            name="nooa",
        )
    raise ImportError(
        f"{module}: the NOOA adapter is not part of this build of openband yet; NOOA agents"
        " run with band-sdk's NooaAdapter (pip install 'band-sdk[nooa]')",
        name=module,
    )
