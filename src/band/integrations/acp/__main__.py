"""``python -m band.integrations.acp``: the ``band-acp`` command."""

from band.integrations.acp.cli import entry_point

entry_point()
