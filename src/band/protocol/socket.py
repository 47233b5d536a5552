"""Re-export of ``band_protocol.socket``, the wire models' home; this path stays for users."""

from band_protocol import socket as _wire
from band_protocol.socket import *  # noqa: F403


def __getattr__(name: str) -> object:  # what the star import leaves out, as before
    return getattr(_wire, name)
