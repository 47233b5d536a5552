"""Re-export of ``band_protocol.contacts``, the wire models' home; this path stays for users."""

from band_protocol.contacts import *  # noqa: F403
