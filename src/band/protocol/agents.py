"""Re-export of ``band_protocol.agents``, the wire models' home; this path stays for users."""

from band_protocol import agents as _wire
from band_protocol.agents import *  # noqa: F403


def __getattr__(name: str) -> object:  # what the star import leaves out, as before
    return getattr(_wire, name)
