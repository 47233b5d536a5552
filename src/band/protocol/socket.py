"""Re-export of ``band_protocol.socket``, the wire models' home; this path stays for users."""

from band_protocol.socket import *  # noqa: F403
