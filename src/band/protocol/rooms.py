"""Re-export of ``band_protocol.rooms``, the wire models' home; this path stays for users."""

from band_protocol.rooms import *  # noqa: F403
