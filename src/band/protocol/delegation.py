"""Re-export of ``band_protocol.delegation``, the wire models' home; this path stays for users."""

from band_protocol.delegation import *  # noqa: F403
