"""Re-export of ``band_protocol.validation``; this path stays for users."""

from band_protocol import validation as _wire
from band_protocol.validation import *  # noqa: F403


def __getattr__(name: str) -> object:  # what the star import leaves out, as before
    return getattr(_wire, name)
