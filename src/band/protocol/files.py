"""Re-export of ``band_protocol.files``, the wire models' home; this path stays for users."""

from band_protocol.files import *  # noqa: F403
