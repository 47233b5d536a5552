"""Re-export of ``band_protocol.messages``, the wire models' home; this path stays for users."""

from band_protocol.messages import *  # noqa: F403
