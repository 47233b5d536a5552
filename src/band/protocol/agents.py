"""Re-export of ``band_protocol.agents``, the wire models' home; this path stays for users."""

from band_protocol.agents import *  # noqa: F403
