"""``band.adapters.nooa``: band-sdk 6.0.1's home of ``NooaAdapter``, ``NooaAdapterConfig``,
``NooaRoomAgent`` and ``RoomTools`` (NOOA, NVIDIA-labs Object Oriented Agents).

NOOA runs only on Python 3.12 and 3.13, on Linux and macOS. This build has no NOOA adapter:
importing this package (or ``band.adapters.NooaAdapter``) raises an import error that says
why, in one line, rather than failing somewhere inside. On another interpreter the error is
a ``ModuleNotFoundError`` naming ``nooa``, as band-sdk raises when the extra is missing.
"""

from __future__ import annotations

import sys

NAMES = ("NooaAdapter", "NooaAdapterConfig", "NooaRoomAgent", "RoomTools")

if not (3, 12) <= sys.version_info[:2] < (3, 14):
    raise ModuleNotFoundError(
        "NooaAdapter needs NOOA, which runs on Python 3.12 and 3.13 only (this is Python"
        f" {sys.version_info[0]}.{sys.version_info[1]}); there: pip install 'openband[nooa]'",
        name="nooa",
    )
raise ImportError(
    "NooaAdapter is not part of this build of openband yet; NOOA agents run with band-sdk's"
    " NooaAdapter (pip install 'band-sdk[nooa]')",
    name="band.adapters.nooa",
)
