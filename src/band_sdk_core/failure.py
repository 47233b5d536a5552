"""Re-export of ``band_protocol.failure``; this path stays for users."""

from band_protocol import failure as _wire
from band_protocol.failure import *  # noqa: F403


def __getattr__(name: str) -> object:  # what the star import leaves out, as before
    return getattr(_wire, name)
