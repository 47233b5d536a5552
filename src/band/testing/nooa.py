"""``band.testing.nooa``: band-sdk 6.0.1's scripted NOOA model turns (``code_turn``,
``result_turn``, ``scripted_llm``, ``room_agent_class``, ...), which script NOOA's own fake
model client to drive a ``NooaRoomAgent``.

They stand on NOOA and on the NOOA adapter (``band.adapters.nooa``), and NOOA runs only on
Python 3.12 and 3.13. Importing this module fails as band-sdk's does without NOOA: a
``ModuleNotFoundError`` naming ``nooa``, with our install hint; where NOOA could run it says
that this build has no NOOA adapter yet, as ``band.adapters.nooa`` does.
"""

from __future__ import annotations

import sys

from band.adapters import _nooa_support

__all__: list[str] = []

_nooa_support.refuse("band.testing.nooa", sys.version_info[:2])
