"""Re-export of ``band_protocol.tasks``, the wire models' home; this path stays for users."""

from band_protocol import tasks as _wire
from band_protocol.tasks import *  # noqa: F403


def __getattr__(name: str) -> object:  # what the star import leaves out, as before
    return getattr(_wire, name)
