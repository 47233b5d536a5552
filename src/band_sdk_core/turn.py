"""Re-export of ``band_protocol.turn``; this path stays for users."""

from band_protocol import turn as _wire
from band_protocol.turn import *  # noqa: F403


def __getattr__(name: str) -> object:  # what the star import leaves out, as before
    return getattr(_wire, name)
