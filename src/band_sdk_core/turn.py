"""Re-export of ``band_protocol.turn``; this path stays for users."""

from band_protocol.turn import *  # noqa: F403
