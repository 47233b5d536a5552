"""Re-export of ``band_protocol.errors``, the wire models' home; this path stays for users."""

from band_protocol.errors import *  # noqa: F403
