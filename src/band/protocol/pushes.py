"""Re-export of ``band_protocol.pushes``, the wire models' home; this path stays for users."""

from band_protocol.pushes import *  # noqa: F403
