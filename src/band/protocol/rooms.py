"""Re-export of ``band_protocol.rooms``, the wire models' home; this path stays for users."""

from band_protocol import rooms as _wire
from band_protocol.rooms import *  # noqa: F403


def __getattr__(name: str) -> object:  # what the star import leaves out, as before
    return getattr(_wire, name)
