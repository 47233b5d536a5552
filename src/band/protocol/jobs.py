"""Re-export of ``band_protocol.jobs``, the wire models' home; this path stays for users."""

from band_protocol.jobs import *  # noqa: F403
