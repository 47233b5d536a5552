"""``band.adapters.nooa``: band-sdk 6.0.1's home of ``NooaAdapter``, ``NooaAdapterConfig``,
``NooaRoomAgent`` and ``RoomTools`` (NOOA, NVIDIA-labs Object Oriented Agents).

NOOA runs only on Python 3.12 and 3.13, on Linux and macOS. This build has no NOOA adapter:
importing this package (or ``band.adapters.NooaAdapter``) raises an import error that says
why, in one line, rather than failing somewhere inside. On another interpreter the error is
a ``ModuleNotFoundError`` naming ``nooa``, as band-sdk raises when the extra is missing.
"""

from __future__ import annotations

import sys

from band.adapters import _nooa_support

NAMES = ("NooaAdapter", "NooaAdapterConfig", "NooaRoomAgent", "RoomTools")

_nooa_support.refuse("NooaAdapter", sys.version_info[:2])
