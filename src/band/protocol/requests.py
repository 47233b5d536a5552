"""Re-export of ``band_protocol.requests``, the wire models' home; this path stays for users."""

from band_protocol.requests import *  # noqa: F403
