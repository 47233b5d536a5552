"""Re-export of ``band_protocol.validation``; this path stays for users."""

from band_protocol.validation import *  # noqa: F403
