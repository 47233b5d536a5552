"""Re-export of ``band_protocol.tasks``, the wire models' home; this path stays for users."""

from band_protocol.tasks import *  # noqa: F403
