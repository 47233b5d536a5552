"""Re-export of ``band_protocol.failure``; this path stays for users."""

from band_protocol.failure import *  # noqa: F403
